"""The stepping page: one self-contained HTML file holding every frame of a game as inline SVG,
shown one at a time with buttons (first, previous, next, last) and the keys Left, Right, Home
and End, and listed by caption (a click on one shows it).

For tests the page reads its address's fragment on load: ``#step=N`` shows frame N (0 the first)
and ``#presskeys=N`` sends N ArrowRight key presses through the page's key handler.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from pathlib import Path

from ..errors import InputError
from .svg import FONT, defs


@dataclass(frozen=True)
class Frame:
    """One picture of the page: ``svg`` an ``<svg>`` element using the page's card symbols,
    ``caption`` what it shows (the move that led to it)."""

    svg: str
    caption: str


_STYLE = f"""
body {{ font-family: {FONT}; background: #f3f1e8; color: #1d1d1d; margin: 16px; }}
h1 {{ font-size: 20px; margin: 0 0 4px; }}
#summary {{ margin: 0 0 10px; color: #444; }}
#controls {{ display: flex; gap: 6px; align-items: center; margin-bottom: 6px; }}
#controls button {{ font-size: 15px; padding: 4px 12px; }}
#counter {{ font-variant-numeric: tabular-nums; margin-left: 8px; color: #444; }}
#caption {{ font-size: 17px; font-weight: bold; min-height: 1.4em; margin: 4px 0 10px; }}
.frame svg {{ max-width: 100%; height: auto; }}
details {{ margin-top: 12px; }}
#steps {{ max-height: 18em; overflow-y: auto; font-size: 14px; padding-left: 3.5em; }}
#steps li {{ cursor: pointer; }}
#steps li.at {{ background: #ffe58a; }}
"""

# The key handler is the one path to another frame: the buttons and the test fragment go through it.
_SCRIPT = """
const frames = document.querySelectorAll('.frame');
const caption = document.getElementById('caption');
const counter = document.getElementById('counter');
const steps = document.querySelectorAll('#steps li');
let at = 0;
function show(i) {
  i = Math.max(0, Math.min(frames.length - 1, i));
  frames[at].hidden = true;
  frames[i].hidden = false;
  steps[at].classList.remove('at');
  steps[i].classList.add('at');
  at = i;
  caption.textContent = frames[i].dataset.caption;
  counter.textContent = 'frame ' + i + ' of ' + (frames.length - 1);
  document.body.dataset.step = i;
}
const targets = {ArrowLeft: () => at - 1, ArrowRight: () => at + 1, Home: () => 0, End: () => frames.length - 1};
document.addEventListener('keydown', (event) => {
  const target = targets[event.key];
  if (target) { show(target()); event.preventDefault(); }
});
const press = (key) => document.dispatchEvent(new KeyboardEvent('keydown', {key: key}));
for (const [id, key] of [['first', 'Home'], ['prev', 'ArrowLeft'], ['next', 'ArrowRight'], ['last', 'End']]) {
  document.getElementById(id).addEventListener('click', () => press(key));
}
steps.forEach((item, k) => item.addEventListener('click', () => show(k)));
show(0);
const asked = /^#(step|presskeys)=([0-9]+)$/.exec(location.hash);
if (asked && asked[1] === 'step') show(Number(asked[2]));
if (asked && asked[1] === 'presskeys') for (let k = 0; k < Number(asked[2]); k++) press('ArrowRight');
"""


def page(title: str, summary: str, frames: Sequence[Frame], decks: int = 1) -> str:
    """The HTML page of ``frames`` (at least one), headed by ``title`` and ``summary``; ``decks``:
    the card symbols the frames use (2: both decks')."""
    if not frames:
        raise ValueError("a page needs a frame")
    listed = "".join(f"<li>{escape(f.caption)}</li>" for f in frames)
    shown = "".join(f'<div class="frame" data-caption="{escape(f.caption)}"{" hidden" if k else ""}>{f.svg}</div>\n'
                    for k, f in enumerate(frames))
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>{escape(title)}</title>\n'
            f'<style>{_STYLE}</style>\n</head>\n<body>\n<h1>{escape(title)}</h1>\n'
            f'<p id="summary">{escape(summary)}</p>\n'
            f'<div id="controls"><button id="first" title="Home">&laquo; first</button>'
            f'<button id="prev" title="Left arrow">&#x25C0; prev</button>'
            f'<button id="next" title="Right arrow">next &#x25B6;</button>'
            f'<button id="last" title="End">last &raquo;</button><span id="counter"></span></div>\n'
            f'<p id="caption">{escape(frames[0].caption)}</p>\n'
            f'<svg width="0" height="0" style="position:absolute" aria-hidden="true">{defs(decks)}</svg>\n'
            f'{shown}<details><summary>every frame ({len(frames)}): click one to show it</summary>'
            f'<ol id="steps" start="0">{listed}</ol></details>\n<script>{_SCRIPT}</script>\n</body>\n</html>\n')


def write(path: str, text: str) -> None:
    """Write ``text`` to ``path`` (:class:`InputError` if it cannot be written)."""
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as err:
        raise InputError(f"cannot write {path!r}: {err.strerror}") from None
