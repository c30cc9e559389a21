#!/usr/bin/python3
"""Mutation test of the scenario reader (issue 15): deterministic mutations of the bundled
scenarios (scenarios/*.yaml, tests/data/*.yaml), each checked through `aidcsim validate`, and a
sample of those validate accepts through `aidcsim run`.

Usage: mutate_scenarios.py AIDCSIM SOURCE_DIR [--all] [--list] [--jobs N] [--keep DIR]

Every mutation edits one line (or one block) of a bundled scenario as text, so the expected
file:line stays meaningful. Kinds (what each is expected to give):
  - numbers scaled by 0 (either), by -1, 1e30 and 1e-30, replaced by NaN or inf (nonsense);
    1e-30 is only nonsense where 0 is refused too (a tiny value of a quantity that may be 0 is a
    value, not nonsense);
  - units swapped for a unit of another dimension or dropped (nonsense), bits <-> bytes (either);
  - keys deleted (either: optional keys have defaults), duplicated or misspelt (nonsense);
  - types changed: scalar -> list, map, word, bool or null (nonsense, except free text);
  - lists emptied (either), a section made a scalar (nonsense), a line dedented (either);
  - strings garbled: reversed, upper-cased, a number or 100,000 characters (nonsense for a
    choice, either for free text), a control character or an invalid UTF-8 byte inserted
    (nonsense); ratios ("1:1") and dates broken, booleans flipped (either) or not booleans;
  - YAML features: an anchor (either), an explicit tag (nonsense);
  - whole files: truncated, empty, null, a list, two documents, tabs, NUL (nonsense), CRLF line
    ends or a byte order mark (either).
"Nonsense" must give exit 2; "either" may give 0 or 2. Every exit 2 must name FILE:LINE, and no
mutation may crash (signal), exit with another code or take more than 30 s. A run of a mutation
validate accepted must exit 0 or 2 (FILE:LINE) within 30 s, and a failed run leaves no output.

CI (ctest cli_mutate_scenarios) runs a fixed sample (SAMPLE mutations, always the same); --all
runs every mutation (~2,300, ~5 min on 2 cores).
Exit status: 0 when every mutation behaved, 1 otherwise (each failure printed).
"""
import argparse
import concurrent.futures
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

SAMPLE = 300          # mutations checked in CI (validate), out of all enumerated
RUN_SAMPLE = 12       # accepted mutations of the small test scenario also run
TIMEOUT = 30.0        # seconds per aidcsim process (issue 15: no hang, <= 30 s each)
SEED = 15             # the sample's seed: the same mutations every time

LINE = re.compile(r'^(?P<indent>\s*)(?P<dash>- )?(?P<key>[A-Za-z_][A-Za-z0-9_]*):(?P<sp>\s*)'
                  r'(?P<value>"[^"]*"|[^#\s][^#]*?)?(?P<tail>\s*(#.*)?)$')
QUANTITY = re.compile(r'^(?P<num>[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?)\s*(?P<suffix>[A-Za-z/%]*)$')
RATIO = re.compile(r'^(\d+):(\d+)$')
DATE = re.compile(r'^\d{4}-\d{2}-\d{2}$')
FREE_TEXT = {'name', 'description'}   # keys whose value is any text
# A unit of another dimension for each unit family used by the bundled scenarios.
UNIT_SWAP = {'Gbps': 'GB', 'ns': 'Gbps', 'L/min': 'W', 'degC': 'L/min', 'K': 'ns', 'h': 'degC',
             'min': 'Gbps', 'TB/s': 'TB', 'T': 'W', 'W': 'h', 'kW': 'min', 'MW': 'K'}
COUNT_SUFFIXES = {'k', 'K', 'M', 'G', 'T', 'P'}
BITS_BYTES = {'Gbps': 'GBps', 'TB/s': 'Tb/s', 'GB': 'Gb', 'TB': 'Tb'}


class Mutation:
    def __init__(self, base, line, kind, text, verdict, note, group):
        self.base, self.line, self.kind, self.text = base, line, kind, text
        self.verdict = verdict    # "nonsense" (exit 2 expected) or "either" (0 or 2)
        self.note, self.group = note, group  # group: the (key path, kind) duplicates share
        self.name = None
        self.depends = None       # for 1e-30: the x0 mutation of the same line


def key_paths(lines):
    """Dotted key path of every line ("reliability.failures[].mtbf"; None for lines without a key)."""
    stack, out = [], []   # (indent, path) of the open sections and list items
    for ln in lines:
        m = LINE.match(ln)
        if not m or ln.lstrip().startswith('#'):
            out.append(None)
            continue
        indent = len(m.group('indent'))
        if m.group('dash'):
            while stack and stack[-1][0] >= indent:
                stack.pop()
            parent = stack[-1][1] if stack else ''
            stack.append((indent, parent + '[]'))   # the item: its keys are 2 columns further in
            indent += 2
        while stack and stack[-1][0] >= indent:
            stack.pop()
        parent = stack[-1][1] if stack else ''
        path = parent + '.' + m.group('key') if parent else m.group('key')
        out.append(path)
        if not m.group('value'):
            stack.append((indent, path))
    return out


def block_end(lines, i):
    """Index after the block of line i (its children: more indented lines)."""
    ind = len(lines[i]) - len(lines[i].lstrip())
    j = i + 1
    while j < len(lines) and (not lines[j].strip() or lines[j].lstrip().startswith('#')
                              or len(lines[j]) - len(lines[j].lstrip()) > ind):
        j += 1
    return j


def scaled(num, factor):
    v = float(num) * factor
    if v == int(v) and abs(v) < 1e15:
        return str(int(v))
    return '%.6g' % v


def mutate_line(lines, i, path, base):
    """All mutations of line i of `lines` (a key line)."""
    m = LINE.match(lines[i])
    key, value = m.group('key'), m.group('value')
    pre = lines[i][:m.start('value')] if value else None
    tail = m.group('tail') or ''
    muts = []

    def edit(kind, new_value, verdict, note=''):
        new = list(lines)
        new[i] = pre + new_value + tail
        muts.append(Mutation(base, i + 1, kind, '\n'.join(new) + '\n', verdict, note, (path, kind)))

    def replace(kind, new_lines, verdict, note=''):
        new = lines[:i] + new_lines + lines[block_end(lines, i):]
        muts.append(Mutation(base, i + 1, kind, '\n'.join(new) + '\n', verdict, note, (path, kind)))

    free = key in FREE_TEXT
    # Keys: deleted (with their block), duplicated, misspelt.
    replace('delete', [], 'either')
    if m.group('dash'):
        # The first key of a list item: its block is the whole item, and a second copy of an item
        # is a list of two (valid YAML, not a duplicate key). The key is written again inside the
        # item, at its keys' column, with its own block.
        col = len(m.group('indent')) + 2
        j = i + 1
        while j < len(lines) and (not lines[j].strip() or lines[j].lstrip().startswith('#')
                                  or len(lines[j]) - len(lines[j].lstrip()) > col):
            j += 1
        dup = [' ' * col + lines[i][col:]] + lines[i + 1:j]
        text = '\n'.join(lines[:j] + dup + lines[j:]) + '\n'
    else:
        block = lines[i:block_end(lines, i)]
        text = '\n'.join(lines[:i] + block + block + lines[block_end(lines, i):]) + '\n'
    muts.append(Mutation(base, i + 1, 'duplicate', text, 'nonsense', '', (path, 'duplicate')))
    if len(key) > 2:
        bad = key[0] + key[2] + key[1] + key[3:] if key[1] != key[2] else key + 'x'
        new = list(lines)
        new[i] = lines[i].replace(key + ':', bad + ':', 1)
        muts.append(Mutation(base, i + 1, 'misspell', '\n'.join(new) + '\n', 'nonsense', bad,
                             (path, 'misspell')))
    if not value:
        # A section or a list: made a scalar (its children then are a syntax error), emptied.
        replace('section_scalar', [lines[i].split('#')[0].rstrip() + ' 5'] + block[1:], 'nonsense')
        if i + 1 < len(lines) and lines[i + 1].lstrip().startswith('- '):
            replace('empty_list', [lines[i].split(':')[0] + ': []'], 'either')
        else:
            replace('empty_map', [lines[i].split(':')[0] + ': {}'], 'either')
        return muts

    raw = value[1:-1] if value.startswith('"') else value
    q = QUANTITY.match(raw) if not free else None
    if q:
        num, unit = q.group('num'), q.group('suffix')
        sep = raw[q.end('num'):q.start('suffix')] if unit else ''
        quote = lambda s: '"%s"' % s if (unit or value.startswith('"')) else s
        with_unit = lambda n: quote(n + sep + unit if unit else n)
        if float(num) != 0:
            edit('x0', with_unit('0'), 'either')
            zero = muts[-1]
            edit('x-1', with_unit(scaled(num, -1)), 'nonsense')
            edit('x1e30', with_unit(scaled(num, 1e30)), 'nonsense')
            edit('x1e-30', with_unit(scaled(num, 1e-30)), 'nonsense-if-0-refused')
            muts[-1].depends = zero
        edit('nan', with_unit('.nan' if not unit else 'nan'), 'nonsense')
        edit('inf', with_unit('.inf' if not unit else 'inf'), 'nonsense')
        edit('minus_inf', with_unit('-.inf' if not unit else '-inf'), 'nonsense')
        if unit:
            if unit in UNIT_SWAP:
                edit('unit_swap', quote(num + ' ' + UNIT_SWAP[unit]), 'nonsense', UNIT_SWAP[unit])
            # A count's suffix is a prefix ("15T" tokens): without it, still a count.
            edit('unit_drop', quote(num), 'either' if unit in COUNT_SUFFIXES else 'nonsense')
            edit('unit_garble', quote(num + ' ' + unit[::-1] + 'q'), 'nonsense')
            if unit in BITS_BYTES:
                edit('bits_bytes', quote(num + ' ' + BITS_BYTES[unit]), 'either', BITS_BYTES[unit])
        else:
            edit('fraction_text', '"%s/0"' % num, 'nonsense')
            # Integers in hexadecimal (YAML 1.2 int; either), other numbers overflowing a double.
            edit('hex', '0x%X' % int(float(num)) if float(num) == int(float(num)) else num + 'e999',
                 'either' if float(num) == int(float(num)) else 'nonsense')
    elif RATIO.match(raw):
        a, b = RATIO.match(raw).groups()
        edit('ratio_zero', '"%s:0"' % a, 'nonsense')
        edit('ratio_neg', '"-%s:%s"' % (a, b), 'nonsense')
        edit('ratio_big', '"1e30:%s"' % b, 'nonsense')
        edit('ratio_nan', '"nan:%s"' % b, 'nonsense')
        edit('ratio_inverted', '"1:4"', 'nonsense')
        edit('ratio_text', '"%s to %s"' % (a, b), 'nonsense')
    elif DATE.match(raw):
        edit('date_month13', '"%s-13-01"' % raw[:4], 'nonsense')
        edit('date_feb30', '"%s-02-30"' % raw[:4], 'nonsense')
        edit('date_year0', '"0000-01-01"', 'nonsense')
        edit('date_far', '"9999-12-31"', 'nonsense')
        edit('date_text', '"March 2026"', 'nonsense')
    elif raw in ('true', 'false'):
        edit('bool_flip', 'false' if raw == 'true' else 'true', 'either')
        edit('bool_number', '2', 'nonsense')
        edit('bool_text', 'maybe', 'nonsense')
    else:
        # Choices (a word from a list) and free text.
        edit('garble', quote_text(raw[::-1] + 'q'), 'either' if free else 'nonsense')
        if raw.upper() != raw:
            edit('case', quote_text(raw.upper()), 'either' if free else 'nonsense')
        edit('number', '42', 'either' if free else 'nonsense')
        edit('long', quote_text('x' * 100000), 'either' if free else 'nonsense')
    # Types changed, control characters and bad bytes (any scalar).
    edit('to_list', '[1, 2]', 'nonsense')
    edit('to_map', '{a: 1}', 'nonsense')
    edit('to_null', '~', 'nonsense' if not free else 'either')
    edit('to_word', 'abc', 'either' if free else 'nonsense')
    edit('control_char', '"' + raw + '\x07"', 'nonsense')   # BEL, written raw
    edit('bad_utf8', raw + '\udce9', 'nonsense')  # surrogate-escaped byte 0xE9 (written raw)
    edit('anchor_alias', '&a ' + (value if value else 'x'), 'either')
    edit('tag', '!!str ' + value, 'nonsense')
    # Indentation changed: the line one level out (often a key of the wrong section).
    if len(m.group('indent')) >= 2 and not m.group('dash'):
        new = list(lines)
        new[i] = lines[i][2:]
        muts.append(Mutation(base, i + 1, 'dedent', '\n'.join(new) + '\n', 'either', '',
                             (path, 'dedent')))
    return muts


def quote_text(s):
    return '"' + s.replace('\\', '\\\\').replace('"', '\\"') + '"'


def enumerate_mutations(src):
    files = [os.path.join(src, 'scenarios', f) for f in sorted(os.listdir(os.path.join(src, 'scenarios')))
             if f.endswith('.yaml')]
    files += [os.path.join(src, 'tests', 'data', f)
              for f in sorted(os.listdir(os.path.join(src, 'tests', 'data'))) if f.endswith('.yaml')]
    muts, seen = [], set()
    for path in files:
        with open(path, encoding='utf-8') as f:
            lines = f.read().split('\n')
        if lines and lines[-1] == '':
            lines.pop()
        paths = key_paths(lines)
        base = os.path.basename(path)
        # Whole-file mutations.
        text = '\n'.join(lines) + '\n'
        for kind, t, verdict in [('truncate_half', '\n'.join(lines[:len(lines) // 2]) + '\n', 'nonsense'),
                                 ('empty_file', '', 'nonsense'),
                                 ('null_document', '~\n', 'nonsense'),
                                 ('list_document', '- 1\n- 2\n', 'nonsense'),
                                 ('two_documents', text + '---\n' + text, 'nonsense'),
                                 ('tabs', text.replace('  ', '\t', 1), 'nonsense'),
                                 ('crlf', text.replace('\n', '\r\n'), 'either'),
                                 ('bom', '\ufeff' + text, 'either'),
                                 ('nul_byte', text.replace('cluster:', 'clus\x00ter:'), 'nonsense')]:
            if ('<file>', kind, base) not in seen:
                seen.add(('<file>', kind, base))
                muts.append(Mutation(base, 0, kind, t, verdict, '', ('<file>', kind, base)))
        for i, ln in enumerate(lines):
            if paths[i] is None:
                continue
            for mu in mutate_line(lines, i, paths[i], base):
                # The same key and kind in another bundled file is the same test; the small test
                # scenario is kept as well (it is the one runs use).
                g = mu.group + ((base,) if base == 'small-576.yaml' else ())
                if g in seen:
                    continue
                seen.add(g)
                muts.append(mu)
    for n, mu in enumerate(muts):
        mu.name = 'm%04d-%s' % (n, mu.kind)
    return muts


def run(cmd, cwd):
    try:
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=TIMEOUT)
        return p.returncode, p.stdout.decode('utf-8', 'replace'), p.stderr.decode('utf-8', 'replace')
    except subprocess.TimeoutExpired:
        return None, '', ''


def check(aidcsim, mu, work):
    """Runs `aidcsim validate` on mutation mu; returns (rc, problem or None)."""
    fname = mu.name + '.yaml'
    with open(os.path.join(work, fname), 'wb') as f:
        f.write(mu.text.encode('utf-8', 'surrogateescape'))
    rc, out, err = run([aidcsim, 'validate', fname], work)
    if rc is None:
        return rc, 'validate took more than %g s' % TIMEOUT
    if rc < 0:
        return rc, 'validate was killed by signal %d: %s' % (-rc, err[-500:])
    if rc not in (0, 2):
        return rc, 'validate exited %d (expected 0 or 2): %s' % (rc, err.strip()[:300])
    if rc == 2 and not re.search(re.escape(fname) + r':\d+', err):
        return rc, 'error without %s:LINE: %s' % (fname, err.strip()[:300])
    return rc, None


def check_run(aidcsim, mu, work):
    """`aidcsim run` of an accepted mutation: exit 0, or 2 naming FILE:LINE with no output left."""
    fname = mu.name + '.yaml'
    d = os.path.join(work, mu.name + '.run')
    os.mkdir(d)
    shutil.copy(os.path.join(work, fname), d)
    rc, out, err = run([aidcsim, 'run', fname, '--quiet', '--json', 'x.json', '--output', 'x.h5'], d)
    if rc is None:
        return 'run took more than %g s' % TIMEOUT
    if rc < 0:
        return 'run was killed by signal %d: %s' % (-rc, err[-500:])
    if rc not in (0, 2):
        return 'run exited %d: %s' % (rc, err.strip()[:300])
    left = sorted(set(os.listdir(d)) - {fname})
    if rc == 2:
        if not re.search(re.escape(fname) + r':\d+', err):
            return 'run error without %s:LINE: %s' % (fname, err.strip()[:300])
        if left:
            return 'failed run left %s' % left
    elif left != ['x.h5', 'x.json']:
        return 'run exit 0 but outputs are %s' % left
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('aidcsim')
    ap.add_argument('source_dir')
    ap.add_argument('--all', action='store_true', help='every mutation, not the CI sample')
    ap.add_argument('--list', action='store_true', help='print the mutations and exit')
    ap.add_argument('--jobs', type=int, default=2)
    ap.add_argument('--keep', help='write the mutated files here and keep them')
    ap.add_argument('--show-accepted', action='store_true', help='print the mutations validate accepted')
    a = ap.parse_args()
    aidcsim = os.path.realpath(a.aidcsim)
    muts = enumerate_mutations(os.path.realpath(a.source_dir))
    total = len(muts)
    if not a.all:
        keep = set(random.Random(SEED).sample(range(total), min(SAMPLE, total)))
        # A 1e-30 mutation needs its x0 sibling's verdict.
        keep |= {n for n, mu in enumerate(muts) if mu.depends is not None and n in keep
                 for n in [muts.index(mu.depends)]}
        muts = [mu for n, mu in enumerate(muts) if n in keep]
    if a.list:
        for mu in muts:
            print('%s %s:%d %s %s' % (mu.name, mu.base, mu.line, mu.group[0], mu.verdict))
        return 0
    work = a.keep or tempfile.mkdtemp(prefix='aidcsim-mutate-')
    os.makedirs(work, exist_ok=True)
    try:
        with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
            results = dict(zip((mu.name for mu in muts), pool.map(lambda mu: check(aidcsim, mu, work), muts)))
        problems, accepted, refused = [], [], 0
        for mu in muts:
            rc, problem = results[mu.name]
            where = '%s (%s line %d, %s %s)' % (mu.name, mu.base, mu.line, mu.group[0], mu.note)
            if problem:
                problems.append('%s: %s' % (where, problem))
                continue
            verdict = mu.verdict
            if verdict == 'nonsense-if-0-refused':
                zero_rc = results.get(mu.depends.name, (None, None))[0]
                verdict = 'nonsense' if zero_rc == 2 else 'either'
            if rc == 0 and verdict == 'nonsense':
                problems.append('%s: nonsense accepted (exit 0)' % where)
            if rc == 0:
                accepted.append(mu)
                if a.show_accepted:
                    print('accepted %s (%s)' % (where, verdict))
            else:
                refused += 1
        # A sample of the accepted mutations of the small test scenario, run.
        runnable = [mu for mu in accepted if mu.base == 'small-576.yaml' and mu.kind != 'long']
        sample = random.Random(SEED).sample(runnable, min(RUN_SAMPLE, len(runnable)))
        with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
            for mu, problem in zip(sample, pool.map(lambda mu: check_run(aidcsim, mu, work), sample)):
                if problem:
                    problems.append('%s (%s line %d, %s): %s' % (mu.name, mu.base, mu.line, mu.group[0], problem))
        print('%d mutations validated (of %d enumerated): %d refused with FILE:LINE, %d accepted; '
              '%d accepted mutations run' % (len(muts), total, refused, len(accepted), len(sample)))
        for p in problems:
            print('FAIL ' + p)
        return 1 if problems else 0
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    sys.exit(main())
