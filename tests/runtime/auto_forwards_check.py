#!/usr/bin/env python3
"""`auto` (runtime/src/sched/auto.cpp) hands every execution to the scheduler
it chose; each query of the Scheduler and Seedable interfaces must reach that
scheduler.  A virtual that AutoScheduler does not override answers with the
interface's default instead -- silently: session 51's call QL measured a rule
of eft that never ran because `auto` did not forward it.  This check fails
when an interface's virtual method has no override in auto.cpp.

  auto_forwards_check.py SCHEDULER_HPP AUTO_CPP
"""
import re
import sys


def class_body(text, name):
    m = re.search(r'\nclass\s+' + name + r'\s*\{', text)
    if not m:
        sys.exit('auto_forwards_check: no class %s' % name)
    depth, i = 1, m.end()
    while depth and i < len(text):
        depth += {'{': 1, '}': -1}.get(text[i], 0)
        i += 1
    return text[m.end():i]


def strip_comments(text):
    text = re.sub(r'/\*.*?\*/', '', text, flags=re.S)
    return re.sub(r'//[^\n]*', '', text)


def virtuals(body):
    # (not the destructors: `virtual ~Scheduler()`)
    return set(re.findall(r'\bvirtual\b[^;{(~]*?\b(\w+)\s*\(', body))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    iface = strip_comments(open(sys.argv[1]).read())
    auto = strip_comments(open(sys.argv[2]).read())
    wanted = virtuals(class_body(iface, 'Scheduler')) | virtuals(class_body(iface, 'Seedable'))
    if not wanted:
        sys.exit('auto_forwards_check: found no virtual methods in ' + sys.argv[1])
    overridden = set(re.findall(r'\b(\w+)\s*\([^;{]*?\)\s*(?:const\s*)?override\b', auto, flags=re.S))
    missing = sorted(wanted - overridden)
    if missing:
        print('auto_forwards_check: AutoScheduler does not override: ' + ', '.join(missing))
        return 1
    print('auto_forwards_check: %d queries, every one overridden' % len(wanted))
    return 0


if __name__ == '__main__':
    sys.exit(main())
