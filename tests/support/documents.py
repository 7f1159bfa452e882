"""Real documents made in the test: PDFs written by hand (text pages, image-only pages, encrypted with pypdf),
DOCX files with python-docx, a DOCX zip bomb, and news-like HTML pages with navigation around the article."""

from __future__ import annotations

import io
import zipfile


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def make_pdf(pages: list[list[str]], title: str | None = None, created: str | None = None) -> bytes:
    """A PDF with one page per item, each line of the item drawn as text (no text at all: a page without a text
    layer, as a scan has); `title` and `created` ("D:20240315000000") go into the document information."""
    objects: list[bytes] = []
    page_ids = []
    font_id = 3
    objects.append(b"")  # 1: catalog, filled below
    objects.append(b"")  # 2: pages
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    for lines in pages:
        ops = ["BT", "/F1 11 Tf", "14 TL", "72 720 Td"]
        for line in lines:
            ops.append(f"({_escape(line)}) Tj T*")
        ops.append("ET")
        stream = "\n".join(ops).encode("latin-1") if lines else b"q 1 0 0 1 0 0 cm Q"
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
        content_id = len(objects)
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
            b"/Resources << /Font << /F1 %d 0 R >> >> >>" % (content_id, font_id)
        )
        page_ids.append(len(objects))
    objects[0] = b"<< /Type /Catalog /Pages 2 0 R >>"
    kids = b" ".join(b"%d 0 R" % i for i in page_ids)
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, len(page_ids))
    info = []
    if title:
        info.append(f"/Title ({_escape(title)})")
    if created:
        info.append(f"/CreationDate ({created})")
    info_id = None
    if info:
        objects.append(("<< " + " ".join(info) + " >>").encode("latin-1"))
        info_id = len(objects)
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    trailer = b"<< /Size %d /Root 1 0 R" % (len(objects) + 1)
    if info_id:
        trailer += b" /Info %d 0 R" % info_id
    out.write(b"trailer\n" + trailer + b" >>\nstartxref\n%d\n%%%%EOF\n" % xref)
    return out.getvalue()


def encrypt_pdf(data: bytes, password: str = "secret") -> bytes:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    writer.encrypt(user_password=password, owner_password=password, algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def make_docx(blocks: list[tuple[str, str]], title: str | None = None, author: str | None = None) -> bytes:
    """A DOCX from (kind, text) blocks: kind "h1".."h3" a heading, "p" a paragraph, "table" rows of cells split by
    "|" and rows by ";"."""
    from docx import Document

    document = Document()
    if title:
        document.core_properties.title = title
    if author:
        document.core_properties.author = author
    for kind, text in blocks:
        if kind.startswith("h"):
            document.add_heading(text, level=int(kind[1:]))
        elif kind == "table":
            rows = [row.split("|") for row in text.split(";")]
            table = document.add_table(rows=len(rows), cols=len(rows[0]))
            for r, row in enumerate(rows):
                for c, cell in enumerate(row):
                    table.cell(r, c).text = cell.strip()
        else:
            document.add_paragraph(text)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def make_zip_bomb(base: bytes, entry_bytes: int = 300_000_000) -> bytes:
    """`base` (a valid DOCX) with one more entry of `entry_bytes` zeros, deflated to a few hundred kilobytes."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(base)) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for item in source.infolist():
            target.writestr(item, source.read(item.filename))
        with target.open("word/media/padding.bin", "w", force_zip64=True) as fh:
            block = bytes(1_000_000)
            for _ in range(entry_bytes // len(block)):
                fh.write(block)
    return out.getvalue()


def news_page(title: str, sections: list[tuple[str, str]], *, site: str = "Harbour Times",
              author: str = "Ada Byline", published: str = "2024-03-15T08:00:00Z") -> str:  # fmt: skip
    """A news page: a navigation bar, a cookie banner, the article (h1, then h2 sections) and a footer; the date,
    author and publisher in its JSON-LD and og: tags."""
    body = "".join(f"<h2>{heading}</h2><p>{text}</p>" for heading, text in sections)
    return f"""<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{title} | {site}</title>
<meta property="og:site_name" content="{site}"><meta property="og:title" content="{title}">
<meta property="article:published_time" content="{published}">
<script type="application/ld+json">{{"@context": "https://schema.org", "@type": "NewsArticle",
"headline": "{title}", "datePublished": "{published}", "author": {{"@type": "Person", "name": "{author}"}},
"publisher": {{"@type": "Organization", "name": "{site}"}}}}</script></head>
<body><nav class="site-nav"><a href="/">Home</a> <a href="/world">World</a> <a href="/markets">Markets</a></nav>
<div class="cookie-banner">We use cookies to improve your experience. Accept all cookies?</div>
<main><article><h1>{title}</h1><p class="byline">By {author}</p>{body}</article>
<aside class="related">Related: Ten things you missed this week</aside></main>
<footer>Copyright {site}. All rights reserved. Contact us. Privacy policy.</footer></body></html>"""
