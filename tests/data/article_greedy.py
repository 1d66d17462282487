#!/usr/bin/env python3
"""The source article's greedy heap scheduler (section 3.2), wrapped to read
seed JSON files and print each order, one line of space-separated node ids
per file.

The loop below is the article's code verbatim. The article does not print
the lines that fill `adj`, `indegree`, `changes` and `types`; they are
written here from its section 2.2: adjacency and in-degree from `Edges`
(duplicates counted, as `adj[u].append(v)` does), change +Size for ALLOC,
-Size of the buffer's ALLOC for FREE, 0 otherwise; type FREE 0, compute 1,
ALLOC 2. Like the article, it assumes node ids 0..n-1 in array order.

Usage: article_greedy.py FILE [FILE ...]
"""
import heapq
import json
import sys
from collections import defaultdict


def min_peak_schedule(data):
    nodes = data["Nodes"]
    edges = data["Edges"]

    adj = defaultdict(list)
    indegree = [0] * len(nodes)
    for u, v in edges:
        adj[u].append(v)
        indegree[v] += 1

    buf_size = {}
    for node in nodes:
        if node["Op"] == "ALLOC":
            buf_size[node["BufId"]] = node["Size"]

    changes = {}
    types = {}
    for node in nodes:
        nid = node["Id"]
        if node["Op"] == "ALLOC":
            changes[nid] = node["Size"]
            types[nid] = 2
        elif node["Op"] == "FREE":
            changes[nid] = -buf_size[node["BufId"]]
            types[nid] = 0
        else:
            changes[nid] = 0
            types[nid] = 1

    # ---- the article's section 3.2, verbatim ----
    ready = []
    for i in range(len(nodes)):
        if indegree[i] == 0:
            heapq.heappush(ready, (changes[i], types[i], i))

    schedule = []
    current_mem = 0
    max_live = 0
    while ready:
        change, _, nid = heapq.heappop(ready)
        schedule.append(nid)
        current_mem += change
        max_live = max(max_live, current_mem)
        for nei in adj[nid]:
            indegree[nei] -= 1
            if indegree[nei] == 0:
                heapq.heappush(ready, (changes[nei], types[nei], nei))
    # ---- end of the article's code ----

    if len(schedule) != len(nodes):
        raise ValueError("Graph has cycle or invalid structure")
    return schedule, max_live


def main():
    for path in sys.argv[1:]:
        with open(path) as f:
            data = json.load(f)
        schedule, max_live = min_peak_schedule(data)
        print(max_live, " ".join(str(i) for i in schedule))


if __name__ == "__main__":
    main()
