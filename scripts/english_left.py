"""Kifu's own English left on Japanese pages: every page in Japanese (AppTest) on the given databases.

    .venv/bin/python scripts/english_left.py kifu.duckdb [more.duckdb …]

Prints the pages that crashed, the messages looked up without a translation and every distinct
English message a viewer would read (the page sweep's detector, ``tests/untranslated.py``, over
titles, captions, labels, options, metrics, table headers and cells). Goal: 0, 0, 0.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from streamlit.testing.v1 import AppTest  # noqa: E402

from app import i18n  # noqa: E402
from tests.app.test_sweep import EVERY, shown_texts  # noqa: E402
from tests.untranslated import left_in_english  # noqa: E402


def main(dbs: list[str]) -> int:
    crashes, missing, found = [], set(), set()
    for db in dbs:
        os.environ["KIFU_DB"] = str(Path(db).resolve())
        for page in EVERY:
            i18n.MISSING.clear()
            at = AppTest.from_file(str(ROOT / "app" / "streamlit_app.py"), default_timeout=60)
            at.query_params["lang"] = "ja"
            at.run()
            try:
                if page != "matches":
                    at.switch_page(f"app_pages/{page}.py").run()
            except Exception as exc:  # a page missing from this database's navigation
                crashes.append(f"{db} {page}: {exc}")
                continue
            crashes += [f"{db} {page}: {e.value[:120]}" for e in at.exception]
            missing |= set(i18n.MISSING)
            found |= {t.split(" (message ", 1)[1].rstrip(")") for t in left_in_english(shown_texts(at))}
    print(f"pages that crashed: {len(crashes)}", *crashes, sep="\n  ")
    print(f"messages looked up without a translation: {len(missing)}", *sorted(missing), sep="\n  ")
    print(f"distinct English messages shown: {len(found)}", *sorted(found), sep="\n  ")
    return 1 if crashes or missing or found else 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1:]))
