#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Finds GLib assertions that cannot fail in C sources.

    check-assertions.py DIR_OR_FILE...

Reports, as file:line, every
  - g_assert_cmp*() whose two operands are the same text (a value compared with itself),
  - g_assert()/g_assert_true() of a comparison whose two sides are the same text, or of an
    equality function (g_str_equal, g_bytes_equal, memcmp, …) given the same thing twice,
  - g_assert_true (TRUE), g_assert (1) and the like, g_assert_false (FALSE),
  - g_assert_cmpuint (x, >=, 0) and g_assert_cmpuint (0, <=, x) (always true unsigned),
and exits 1 if there is any. Comments are skipped; string literals are compared as written.
An assertion that checks for NaN by comparing a value with itself is reported too: say
isnan() instead.
"""

import os
import re
import sys

ASSERT = re.compile(r'\bg_assert(?:_\w+)?\s*\(')
TRUE_CONSTANTS = {'TRUE', '1', '!0', '!FALSE', 'true'}
FALSE_CONSTANTS = {'FALSE', '0', '!1', '!TRUE', 'false'}


def strip_comments(text):
    """The text with comments blanked (newlines kept) and a mask: True where a character
    belongs to a string or character literal."""
    out = list(text)
    in_literal = [False] * len(text)
    i, n = 0, len(text)
    while i < n:
        if text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
        elif text[i] in '"\'':
            quote, j = text[i], i + 1
            while j < n and text[j] != quote and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            for k in range(i, min(j + 1, n)):
                in_literal[k] = True
            i = j + 1
            continue
        else:
            i += 1
            continue
        for k in range(i, j):
            if out[k] != '\n':
                out[k] = ' '
        i = j
    return ''.join(out), in_literal


def brackets(text, start=0, in_literal=None):
    """(index, character, depth) for each character of @text from @start that is not in a
    string literal; depth counts the brackets open around it (a bracket itself counts as
    outside)."""
    depth = 0
    for k in range(start, len(text)):
        if in_literal is not None and in_literal[k]:
            continue
        c = text[k]
        if c in ')]}':
            depth -= 1
        yield k, c, depth
        if c in '([{':
            depth += 1


def call_args(code, in_literal, open_paren):
    """The top-level arguments of the call whose '(' is at @open_paren, or None."""
    start, args = open_paren + 1, []
    for k, c, depth in brackets(code, open_paren, in_literal):
        if c == ')' and depth == 0:
            args.append(code[start:k])
            return args
        if c == ',' and depth == 1:
            args.append(code[start:k])
            start = k + 1
    return None


def norm(expr):
    expr = re.sub(r'\s+', '', expr)
    while expr.startswith('(') and expr.endswith(')') and balanced(expr[1:-1]):
        expr = expr[1:-1]
    return expr


def balanced(expr):
    depth = 0
    for c in expr:
        depth += c == '('
        depth -= c == ')'
        if depth < 0:
            return False
    return depth == 0


def comparison_sides(expr):
    """(left, right) when @expr is one comparison a == b, a <= b or a >= b at the top level
    (no && or || there), else None."""
    found = None
    for i, c, depth in brackets(expr):
        if depth != 0 or c in '()[]{}':
            continue
        two = expr[i:i + 2]
        if two in ('&&', '||'):
            return None
        if two in ('==', '<=', '>=') and expr[i - 1:i] not in ('<', '>', '=', '!') \
                and expr[i + 2:i + 3] != '=':
            if found is not None:
                return None
            found = i
    if found is None:
        return None
    return expr[:found], expr[found + 2:]


def same_arguments_call(expr):
    """The repeated argument when @expr calls an equality or comparison function (g_str_equal,
    g_bytes_equal, lb_image_equal_pixels, strcmp, memcmp, …) with the same first two
    arguments, else None."""
    m = re.match(r'^!?(\w*(?:equal\w*|cmp\w*))\(', expr)
    if m is None:
        return None
    args = call_args(expr, [False] * len(expr), m.end() - 1)
    if args is None or len(args) < 2 or norm(args[0]) != norm(args[1]):
        return None
    return norm(args[0])


def problems(name, args):
    args = [norm(a) for a in args]
    if name.startswith('g_assert_cmp'):
        if name == 'g_assert_cmpmem' and len(args) == 4:
            if args[0] == args[2] and args[1] == args[3]:
                yield 'compares %s with itself' % args[0]
        elif name in ('g_assert_cmpstrv', 'g_assert_cmpvariant', 'g_assert_cmpfloat_with_epsilon'):
            if len(args) >= 2 and args[0] == args[1]:
                yield 'compares %s with itself' % args[0]
        elif len(args) == 3:
            left, op, right = args
            if left == right and op in ('==', '<=', '>='):
                yield 'compares %s with itself' % left
            for operand in (left, right):
                same = same_arguments_call(operand)
                if same is not None:
                    yield 'compares %s with itself' % same
            if name == 'g_assert_cmpuint' and ((op == '>=' and right in ('0', '0u', '0U'))
                                               or (op == '<=' and left in ('0', '0u', '0U'))):
                yield 'an unsigned value is always >= 0'
    elif name in ('g_assert', 'g_assert_true') and len(args) == 1:
        if args[0] in TRUE_CONSTANTS:
            yield '%s (%s) is always true' % (name, args[0])
        sides = comparison_sides(args[0])
        if sides is not None and norm(sides[0]) == norm(sides[1]) and sides[0]:
            yield 'compares %s with itself' % norm(sides[0])
    if name in ('g_assert', 'g_assert_true', 'g_assert_false') and len(args) == 1:
        for side in comparison_sides(args[0]) or (args[0],):
            same = same_arguments_call(norm(side))
            if same is not None:
                yield 'compares %s with itself' % same
    if name == 'g_assert_false' and len(args) == 1 and args[0] in FALSE_CONSTANTS:
        yield 'g_assert_false (%s) is always true' % args[0]


def check_file(path, shown):
    with open(path, encoding='utf-8', errors='replace') as f:
        text = f.read()
    code, in_literal = strip_comments(text)
    found = []
    for m in ASSERT.finditer(code):
        if in_literal[m.start()]:
            continue
        name = re.match(r'\w+', m.group(0)).group(0)
        args = call_args(code, in_literal, m.end() - 1)
        if args is None:
            continue
        line = code.count('\n', 0, m.start()) + 1
        for message in problems(name, args):
            found.append('%s:%d: %s: %s' % (shown, line, name, message))
    return found


def sources(roots):
    """(path, the path to show: from the directory that holds the root)."""
    for root in roots:
        base = os.path.dirname(os.path.abspath(root))
        if os.path.isfile(root):
            yield root, os.path.relpath(root, base)
            continue
        for directory, subdirs, files in os.walk(root):
            subdirs[:] = sorted(d for d in subdirs if not d.startswith('.') and d != 'data')
            for name in sorted(files):
                if name.endswith(('.c', '.h')):
                    path = os.path.join(directory, name)
                    yield path, os.path.relpath(path, base)


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    found, n_files = [], 0
    for path, shown in sources(argv[1:]):
        n_files += 1
        found += check_file(path, shown)
    for line in found:
        print(line)
    print('%d C files read, %d assertions that cannot fail' % (n_files, len(found)))
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
