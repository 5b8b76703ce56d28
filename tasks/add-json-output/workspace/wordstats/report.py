"""Plain-text report."""


def render_text(summary, top) -> str:
    rows = [f"{'lines':>8} {'words':>8} {'chars':>8}  path"]
    for s in summary.files:
        rows.append(f"{s.lines:>8} {s.words:>8} {s.chars:>8}  {s.path}")
    if len(summary.files) > 1:
        rows.append(f"{summary.lines:>8} {summary.words:>8} {summary.chars:>8}  total")
    if top:
        rows.append("top words: " + ", ".join(f"{w} ({c})" for w, c in top))
    return "\n".join(rows) + "\n"
