"""Reports: plain text and JSON."""

import json


def render_text(summary, top) -> str:
    rows = [f"{'lines':>8} {'words':>8} {'chars':>8}  path"]
    for s in summary.files:
        rows.append(f"{s.lines:>8} {s.words:>8} {s.chars:>8}  {s.path}")
    if len(summary.files) > 1:
        rows.append(f"{summary.lines:>8} {summary.words:>8} {summary.chars:>8}  total")
    if top:
        rows.append("top words: " + ", ".join(f"{w} ({c})" for w, c in top))
    return "\n".join(rows) + "\n"


def to_document(summary, top) -> dict:
    """The documented JSON shape (see README.md)."""
    return {
        "files": [
            {"path": s.path, "lines": s.lines, "words": s.words, "chars": s.chars}
            for s in summary.files
        ],
        "totals": {
            "files": len(summary.files),
            "lines": summary.lines,
            "words": summary.words,
            "chars": summary.chars,
        },
        "top_words": [{"word": w, "count": c} for w, c in top],
    }


def render_json(summary, top) -> str:
    return json.dumps(to_document(summary, top), indent=2, ensure_ascii=False) + "\n"
