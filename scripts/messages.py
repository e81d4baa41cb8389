"""Extract the dashboard's messages and update the catalogs (``make messages``).

Writes ``app/locale/kifu.pot`` from every ``_()``/``N_()``/``ngettext()`` in ``app/`` plus the
validator's check titles (``rules/uno/catalog.py``, shown translated on the Japanese pages), and
merges it into each ``app/locale/<lang>/LC_MESSAGES/kifu.po`` (new messages untranslated, old
ones marked obsolete).  ``--check`` changes nothing and exits 1 when a catalog is out of date
or has an untranslated message.  ``--ja FILE.json`` also fills in Japanese translations from a JSON
object (English message -> Japanese), the way to add translations from a script; the catalogs are
rewritten under a lock file, so two runs at once do not lose each other's changes.
"""

from __future__ import annotations

import argparse
import fcntl
import io
import json
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.i18n import DOMAIN, LANGUAGES, LOCALE_DIR, po_path  # noqa: E402
from app.findings import CHECKS  # noqa: E402  (every game's checks)

KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2)}


def template() -> Catalog:
    pot = Catalog(project="Kifu", domain=DOMAIN, charset="utf-8")
    for filename, lineno, message, comments, context in extract_from_dir(
        ROOT / "app", method_map=[("**.py", "python")], keywords=KEYWORDS, comment_tags=("Translators:",),
    ):  # fmt: skip
        pot.add(message, None, [(f"app/{filename}", lineno)], auto_comments=comments, context=context)
    for check in CHECKS.values():
        where = {"kakomimasu": "rules/kakomimasu/checks.py", "chaser": "rules/chaser/checks.py"}.get(
            check.code.split("-", 1)[0], "rules/uno/catalog.py")
        pot.add(check.title, None, [(where, 0)], auto_comments=[f"check {check.code}"])
    return pot


def _dump(catalog: Catalog) -> bytes:
    buf = io.BytesIO()
    write_po(buf, catalog, width=100, omit_header=False, sort_output=True, include_lineno=False)
    return buf.getvalue()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="change nothing; exit 1 when a catalog is out of date")
    ap.add_argument("--ja", type=Path, help="JSON object of English message -> Japanese translation to fill in")
    args = ap.parse_args()
    added = json.loads(args.ja.read_text(encoding="utf-8")) if args.ja else {}
    with (LOCALE_DIR / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _update(args.check, added)


def _update(check: bool, added: dict[str, str]) -> int:
    pot = template()
    problems = []
    pot_file = LOCALE_DIR / f"{DOMAIN}.pot"
    for lang in LANGUAGES:
        if lang == "en":
            continue
        path = po_path(lang)
        if path.exists():
            with path.open("rb") as fh:
                po = read_po(fh, locale=lang, domain=DOMAIN)
        else:
            po = Catalog(locale=lang, domain=DOMAIN, project="Kifu", charset="utf-8")
        po.update(pot, no_fuzzy_matching=True)
        if lang == "ja":
            for msgid, msgstr in added.items():
                if msgid in po:
                    po[msgid].string = msgstr
                    po[msgid].flags.discard("fuzzy")
        missing = [m.id for m in po if m.id and (not m.string or m.fuzzy)]
        if missing:
            problems.append(f"{path.relative_to(ROOT)}: {len(missing)} untranslated, e.g. {missing[:3]}")
        if not check:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(_dump(po))
    if not check:
        pot_file.write_bytes(_dump(pot))
    print(f"{len(pot)} messages", *problems, sep="\n")
    return 1 if problems and check else 0


if __name__ == "__main__":
    sys.exit(main())
