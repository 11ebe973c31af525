#!/usr/bin/env python3
"""The include graph between the folders of kernels/, and a check that it has no cycle.

A folder is a directory under the root that has a CMakeLists.txt of its own (one build target:
core, lab, labs/custom, toolchain, ...); a file belongs to the deepest such folder above it. Every
`#include "a/b.hpp"` of a source or header is resolved the way the compiler does here (beside the
including file first, then from the root, the include path every target of kernels/ uses); an
include that lands in another folder is an edge of the graph. `<...>` includes and names that
resolve to no file under the root (the standard library, CUDA, a test's own header) are not edges.

    tools/include_graph/check_include_graph.py [ROOT]      (ROOT: kernels/ of this repository)

Prints one line per folder, "folder -> what it includes", then either "no cycle" (exit 0) or the
cycle, each step with one include that makes it (exit 1). Python 3, the standard library only.
"""
import os
import re
import sys

SOURCE_SUFFIXES = (".hpp", ".cpp", ".h", ".cuh", ".cu", ".inl")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def folders_of(root):
    """Every folder (relative path, '/'-separated) under root that has a CMakeLists.txt."""
    found = set()
    for here, dirs, files in os.walk(root):
        dirs.sort()
        rel = os.path.relpath(here, root).replace(os.sep, "/")
        if rel != "." and "CMakeLists.txt" in files:
            found.add(rel)
    return found


def folder_of(rel_path, folders):
    """The deepest folder that holds rel_path, or None (a file outside every folder)."""
    parts = rel_path.split("/")[:-1]
    while parts:
        candidate = "/".join(parts)
        if candidate in folders:
            return candidate
        parts.pop()
    return None


def include_edges(root):
    """{(from_folder, to_folder): (file, line number, included name)}, the first include of each edge,
    and the set of folders."""
    folders = folders_of(root)
    edges = {}
    for here, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith(SOURCE_SUFFIXES):
                continue
            path = os.path.join(here, name)
            rel = os.path.relpath(path, root).replace(os.sep, "/")
            source = folder_of(rel, folders)
            if source is None:
                continue
            with open(path, encoding="utf-8", errors="replace") as f:
                for number, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    target = resolve(root, here, m.group(1))
                    if target is None:
                        continue
                    to = folder_of(target, folders)
                    if to is not None and to != source:
                        edges.setdefault((source, to), (rel, number, m.group(1)))
    return folders, edges


def resolve(root, including_dir, name):
    """The included file relative to root, or None when it is not under root."""
    for base in (including_dir, root):
        candidate = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(candidate):
            rel = os.path.relpath(candidate, root).replace(os.sep, "/")
            return None if rel.startswith("../") else rel
    return None


def find_cycle(folders, edges):
    """One cycle as a list of folders [a, b, ..., a], or None. Depth-first, in sorted order, so the
    answer is the same on every run."""
    out = {f: sorted(t for (s, t) in edges if s == f) for f in folders}
    state = {}  # folder -> 1 on the current path, 2 done
    path = []

    def visit(f):
        state[f] = 1
        path.append(f)
        for t in out.get(f, []):
            if state.get(t) == 1:
                return path[path.index(t):] + [t]
            if t not in state:
                found = visit(t)
                if found:
                    return found
        path.pop()
        state[f] = 2
        return None

    for f in sorted(folders):
        if f not in state:
            found = visit(f)
            if found:
                return found
    return None


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    root = argv[1] if len(argv) > 1 else os.path.join(here, "..", "..", "kernels")
    root = os.path.normpath(root)
    if not os.path.isdir(root):
        print(f"no folder {root}", file=sys.stderr)
        return 2
    folders, edges = include_edges(root)
    width = max((len(f) for f in folders), default=0)
    print(f"include graph of {root} ({len(folders)} folders, {len(edges)} edges):")
    for f in sorted(folders):
        targets = sorted(t for (s, t) in edges if s == f)
        print(f"  {f.ljust(width)} -> {', '.join(targets) if targets else '(nothing)'}")
    cycle = find_cycle(folders, edges)
    if cycle is None:
        print("no cycle")
        return 0
    print("CYCLE: " + " -> ".join(cycle))
    for a, b in zip(cycle, cycle[1:]):
        file, number, name = edges[(a, b)]
        print(f"  {a} -> {b}: {file}:{number} includes \"{name}\"")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
