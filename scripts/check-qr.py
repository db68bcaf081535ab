#!/usr/bin/env python3
"""A manual check that real scanners read Public/js/qr.js's codes: Node makes matrices and SVGs,
this script draws them as PNG (the matrices with Pillow, the SVGs through Cairo, as a browser would
rasterise them) and decodes each with ZXing-C++; every decoded byte string must be the text's UTF-8.

Needs node and PyPI packages the project does not install (the node tests need none of this):
    python3 -m venv /tmp/qrvenv && /tmp/qrvenv/bin/pip install zxing-cpp Pillow cairosvg
    /tmp/qrvenv/bin/python scripts/check-qr.py [--keep DIR]
"""
import hashlib
import base64
import io
import json
import pathlib
import subprocess
import sys

import cairosvg
import zxingcpp
from PIL import Image

ROOT = pathlib.Path(__file__).resolve().parent.parent
SECRET = base64.urlsafe_b64encode(hashlib.sha256(b'rivers preview').digest()).decode().rstrip('=')
PREVIEW = f'https://rivers.example.com/rivers/my-app/preview/{SECRET}/rivers.json'
ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
# Capacity in bytes, version 40 (ISO/IEC 18004 Table 7): longest texts for the largest symbols.
MAX40 = {'L': 2953, 'M': 2331, 'Q': 1663, 'H': 1273}

NODE = r"""
import { qrMatrix, qrSvg } from './Public/js/qr.js';
const cases = JSON.parse(process.argv[1]);
console.log(JSON.stringify(cases.map(([text, ecc, svg]) => {
  const { version, mask, modules } = qrMatrix(text, { ecc });
  return { version, mask, rows: modules.map((r) => r.map((d) => (d ? 1 : 0))), svg: svg ? qrSvg(text, { ecc, scale: 6 }) : null };
})));
"""


def png_of(rows, scale=4, margin=4):
    size = len(rows)
    img = Image.new('L', (size + 2 * margin, size + 2 * margin), 255)
    img.putdata([0 if 0 <= i - margin < size and 0 <= j - margin < size and rows[i - margin][j - margin] else 255
                 for i in range(size + 2 * margin) for j in range(size + 2 * margin)])
    return img.resize((img.width * scale, img.height * scale), Image.NEAREST)


def main():
    keep = pathlib.Path(sys.argv[sys.argv.index('--keep') + 1]) if '--keep' in sys.argv else None
    long_url = f'https://rivers.example.com/rivers/{"a-rather-long-application-name-" * 4}'[:200 - len(f'/preview/{SECRET}/rivers.json')] + f'/preview/{SECRET}/rivers.json'
    assert len(long_url) == 200
    cases = []
    for ecc in 'LMQH':
        for text in ['Rivers', PREVIEW, long_url, 'Grüße aus Zürich — 東京の川 🌊 Ελληνικά']:
            cases.append((text, ecc, True))
        cases.append((''.join(ALPHABET[(i * 7) % 64] for i in range(MAX40[ecc])), ecc, ecc == 'L'))
    # No empty text: ZXing-C++ reports no code with empty content at all (segno's neither).
    results = json.loads(subprocess.run(['node', '--input-type=module', '-e', NODE, json.dumps(cases)],
                                        cwd=ROOT, check=True, capture_output=True, text=True).stdout)
    failures = decoded = 0
    for n, ((text, ecc, with_svg), out) in enumerate(zip(cases, results)):
        images = [('matrix', png_of(out['rows']))]
        if with_svg:
            images.append(('svg', Image.open(io.BytesIO(cairosvg.svg2png(bytestring=out['svg'].encode()))).convert('L')))
        for kind, img in images:
            if keep:
                keep.mkdir(parents=True, exist_ok=True)
                img.save(keep / f'{n:02d}-{ecc}-v{out["version"]}-{kind}.png')
            found = zxingcpp.read_barcodes(img, formats=zxingcpp.BarcodeFormat.QRCode)
            ok = len(found) == 1 and found[0].bytes == text.encode('utf-8')
            decoded += ok
            failures += not ok
            label = text if len(text) <= 40 else f'{text[:37]}… ({len(text.encode())} bytes)'
            print(f'{"ok  " if ok else "FAIL"} {kind:6} {ecc} version {out["version"]:2} mask {out["mask"]}  {label}')
    print(f'{decoded} passed, {failures} failed')
    sys.exit(1 if failures else 0)


main()
