from logtime import count_by_hour, extract_timestamp

LINES = [
    "2024-03-05T13:59:58.100Z INFO api started\n",
    '10.0.0.1 - - [05/Mar/2024:15:02:11 +0100] "GET / HTTP/1.1" 200 512\n',
    "    at com.example.Handler.run(Handler.java:42)\n",
    "Mar  5 16:30:00 edge-1 sshd[812]: Accepted publickey\n",
    "ts=1709647331 event=login user=7\n",
]


def test_extract():
    assert extract_timestamp(LINES[2]) is None
    assert extract_timestamp(LINES[1]).isoformat() == "2024-03-05T14:02:11+00:00"


def test_count_by_hour():
    assert count_by_hour(LINES, year=2024) == {
        "2024-03-05T13": 1,
        "2024-03-05T14": 2,
        "2024-03-05T15": 0,
        "2024-03-05T16": 1,
    }
