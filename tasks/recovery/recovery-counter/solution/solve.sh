sh ./deliver.sh
