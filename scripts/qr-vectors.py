#!/usr/bin/env python3
"""Writes Tests/Fixtures/vectors/qr.json: QR Code matrices made by segno, an encoder independent of
Public/js/qr.js, which Tests/js/qr.test.mjs compares module for module.

Needs segno and qrcode (PyPI), not installed by the project: a manual step, run only to remake the
fixture:
    python3 -m venv /tmp/qrvenv && /tmp/qrvenv/bin/pip install segno qrcode
    /tmp/qrvenv/bin/python scripts/qr-vectors.py
"""
import base64
import hashlib
import json
import pathlib
import sys

import qrcode
import qrcode.util
import segno
from importlib.metadata import version as package_version
from segno import consts, encoder

# segno pads a bit stream that already ends on a codeword boundary with a whole zero byte (always so
# in byte mode; heuer/segno issue 148, open): ISO/IEC 18004 §7.4.10 pads only to the boundary.
# The fix proposed there; the data and ECC codewords then agree with python-qrcode's (checked below).
encoder.write_padding_bits = lambda buff, version, length: buff.extend([0] * (-length % 8))

# segno's N3 penalty (§7.8.3.1, 1:1:3:1:1 with four light modules before or after, the quiet zone
# counting as light) resumes its search after a counted pattern, so a second pattern sharing that
# one's last module is never looked at. Every occurrence is counted here (as ZXing does); N1, N2 and
# N4 stay segno's. Entries whose mask this changes are listed in the fixture's source.
segno_mask_scores = encoder.mask_scores
N3_CHANGED = []


def n3(line):
    size, score = len(line), 0
    for k in range(size - 6):
        if line[k:k + 7] == b'\x01\x00\x01\x01\x01\x00\x01' and (
                not any(line[max(k - 4, 0):k]) or not any(line[k + 7:k + 11])):
            score += 40
    return score


def mask_scores(matrix, width, height):
    n1, n2, segno_n3, n4 = segno_mask_scores(matrix, width, height)
    lines = [bytes(row) for row in matrix] + [bytes(row[j] for row in matrix) for j in range(width)]
    return n1, n2, sum(n3(line) for line in lines), n4


encoder.mask_scores = mask_scores

OUT = pathlib.Path(__file__).resolve().parent.parent / 'Tests/Fixtures/vectors/qr.json'
LEVELS = 'LMQH'
# The capacity entries' texts are made by a rule (the test makes them the same way), not stored.
ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
SECRET = base64.urlsafe_b64encode(hashlib.sha256(b'rivers preview').digest()).decode().rstrip('=')  # 43 chars


def make(text, ecc, mask=None):
    code = segno.make(text, error=ecc, mode='byte', encoding='utf-8', micro=False, boost_error=False, mask=mask)
    if mask is None:  # what unpatched N3 would have chosen
        encoder.mask_scores = segno_mask_scores
        plain = segno.make(text, error=ecc, mode='byte', encoding='utf-8', micro=False, boost_error=False)
        encoder.mask_scores = mask_scores
        if plain.mask != code.mask:
            N3_CHANGED.append(f'{ecc} {len(text.encode())} bytes, version {code.version}: mask {code.mask}, not {plain.mask}')
    return code


def rows(code):
    return [''.join('1' if m else '0' for m in row) for row in code.matrix]


def qrcode_rows(text, ecc, mask):
    # python-qrcode, a second encoder, with the same mask: its modules must be segno's.
    levels = {'L': qrcode.ERROR_CORRECT_L, 'M': qrcode.ERROR_CORRECT_M, 'Q': qrcode.ERROR_CORRECT_Q, 'H': qrcode.ERROR_CORRECT_H}
    code = qrcode.QRCode(error_correction=levels[ecc], mask_pattern=mask, border=0)
    code.add_data(qrcode.util.QRData(text.encode('utf-8'), mode=qrcode.util.MODE_8BIT_BYTE))
    code.make(fit=True)
    return [''.join('1' if m else '0' for m in row) for row in code.get_matrix()]


def rule_text(version, ecc, length):
    return ''.join(ALPHABET[(i * 7 + version * 13 + LEVELS.index(ecc) * 3) % len(ALPHABET)] for i in range(length))


qrcode_version = package_version('qrcode')


def main():
    preview = f'https://rivers.example.com/rivers/my-app/preview/{SECRET}/rivers.json'
    slug = 'a-rather-long-application-name-' * 4
    long_url = f'https://rivers.example.com/rivers/{slug[:200 - len(preview) + len("my-app")]}/preview/{SECRET}/rivers.json'
    assert len(long_url) == 200, len(long_url)
    cases = [('short', 'Rivers', ecc, None) for ecc in LEVELS]
    cases += [('empty', '', 'L', None), ('one byte', 'R', 'H', None)]
    cases += [('forced mask', 'https://rivers.example.com', 'M', m) for m in range(8)]
    cases += [('preview link', preview, ecc, None) for ecc in LEVELS]
    cases += [('200-char URL', long_url, ecc, None) for ecc in LEVELS]
    cases += [('200-char URL, forced mask', long_url, 'Q', m) for m in (2, 5)]
    cases += [('UTF-8', 'Grüße aus Zürich — 東京の川 🌊 Ελληνικά', ecc, None) for ecc in 'MH']
    vectors = []
    for name, text, ecc, mask in cases:
        code = make(text, ecc, mask)
        v = {'name': name, 'text': text, 'ecc': ecc}
        if mask is not None:
            v['mask'] = mask
        v.update({'version': code.version, 'chosenMask': code.mask, 'rows': rows(code)})
        assert qrcode_rows(text, ecc, code.mask) == v['rows'], (name, ecc, mask)
        vectors.append(v)
        print(name, ecc, mask, '→ version', code.version, 'mask', code.mask, file=sys.stderr)

    # Every version and level, filled to segno's byte capacity: the version must be this one, one
    # byte more the next one, and the whole matrix (mask chosen) has this SHA-256.
    capacity = []
    for version in range(1, 41):
        for ecc in LEVELS:
            bits = consts.SYMBOL_CAPACITY[version][consts.ERROR_MAPPING[ecc]]
            length = (bits - 4 - (8 if version < 10 else 16)) // 8
            code = make(rule_text(version, ecc, length), ecc)
            assert code.version == version, (version, ecc, code.version)
            if version < 40:
                assert make(rule_text(version, ecc, length + 1), ecc, 0).version == version + 1
            if version % 3 == 1:
                assert qrcode_rows(rule_text(version, ecc, length), ecc, code.mask) == rows(code), (version, ecc)
            digest = hashlib.sha256('\n'.join(rows(code)).encode()).hexdigest()
            capacity.append({'version': version, 'ecc': ecc, 'bytes': length, 'chosenMask': code.mask, 'sha256': digest})
        print('capacity', version, file=sys.stderr)

    fixture = {
        'source': {
            'tool': f'segno {segno.__version__} (PyPI), Python {sys.version.split()[0]}',
            'patched': 'segno pads to a codeword boundary that is already reached with a zero byte (heuer/segno issue 148);'
                       ' the script replaces that step by the fix proposed there',
            'patched N3': 'segno skips a pattern that shares its first module with a counted one; every occurrence is counted'
                          f' (mask changed: {"; ".join(N3_CHANGED) or "none"})',
            'cross-check': f'python-qrcode {qrcode_version} (PyPI), given the mask segno chose, gives the same modules for every vector'
                           ' and for the capacity entries of versions 1, 4, 7, … 40',
            'call': "segno.make(text, error=ecc, mode='byte', encoding='utf-8', micro=False, boost_error=False, mask=mask)",
            'made by': 'scripts/qr-vectors.py',
            'rows': "one string per row, top first, '1' = dark; no quiet zone",
            'capacity': "texts are not stored: character i of the text for (version, ecc) is ALPHABET[(i*7 + version*13 + 'LMQH'.index(ecc)*3) % 64];"
                        " bytes is segno's byte capacity; sha256 is of the rows joined by '\\n'",
        },
        'count': {'vectors': len(vectors), 'capacity': len(capacity)},
        'alphabet': ALPHABET,
        'vectors': vectors,
        'capacity': capacity,
    }
    OUT.write_text(json.dumps(fixture, ensure_ascii=False, indent=1) + '\n')
    print(OUT, OUT.stat().st_size, 'bytes', file=sys.stderr)


main()
