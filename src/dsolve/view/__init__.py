"""Pictures of games: boards drawn as SVG and a self-contained HTML page that steps through them.

``svg.py`` the drawing primitives (cards, backs, empty places, labels, the SVG element);
``klondike.py`` a Klondike board, the frames of a winning line and of a position's hints;
``race.py`` a double-solitaire race's frames, replayed from its record; ``crapette.py`` a
Crapette round's frames, replayed from its record; ``records.py`` reading a record file;
``page.py`` the stepping page.
"""
