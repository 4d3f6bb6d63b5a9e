/* Shortest paths (MiBench "dijkstra" style) on a generated weighted graph held as an adjacency
 * matrix: O(N^2) Dijkstra from many sources with path reconstruction, checked against
 * Floyd-Warshall all-pairs distances on the same graph. */
#include "kernel.h"

enum {
  NODES = 160,
  SOURCES = 48,
  NO_EDGE = 0,
  PASSES = 2,
};

#define INFINITE_DISTANCE 0x3FFFFFFF

static int32_t weight[NODES][NODES];
static int32_t all_pairs[NODES][NODES];
static int32_t distance[NODES];
static int16_t previous[NODES];
static uint8_t done[NODES];

/* A ring (so every node is reachable) plus random edges, about one in six pairs, weights 1-99. */
static void make_graph(void) {
  for (int i = 0; i < NODES; i++)
    for (int j = 0; j < NODES; j++)
      weight[i][j] = i != j && kernel_random() % 6 == 0 ? kernel_random_range(1, 99) : NO_EDGE;
  for (int i = 0; i < NODES; i++) weight[i][(i + 1) % NODES] = kernel_random_range(50, 150);
}

static void dijkstra(int source) {
  for (int i = 0; i < NODES; i++) {
    distance[i] = INFINITE_DISTANCE;
    previous[i] = -1;
    done[i] = 0;
  }
  distance[source] = 0;
  for (int step = 0; step < NODES; step++) {
    int nearest = -1;
    int32_t best = INFINITE_DISTANCE;
    for (int i = 0; i < NODES; i++)
      if (!done[i] && distance[i] < best) {
        best = distance[i];
        nearest = i;
      }
    if (nearest < 0) break;
    done[nearest] = 1;
    const int32_t* edges = weight[nearest];
    for (int i = 0; i < NODES; i++)
      if (edges[i] != NO_EDGE && best + edges[i] < distance[i]) {
        distance[i] = best + edges[i];
        previous[i] = (int16_t)nearest;
      }
  }
}

/* Hops on the shortest path from the source to each node, by following the predecessors. */
static uint64_t path_hops(void) {
  uint64_t hops = 0;
  for (int i = 0; i < NODES; i++)
    for (int node = i; previous[node] >= 0; node = previous[node]) hops++;
  return hops;
}

static void floyd_warshall(void) {
  for (int i = 0; i < NODES; i++)
    for (int j = 0; j < NODES; j++)
      all_pairs[i][j] = i == j ? 0 : weight[i][j] != NO_EDGE ? weight[i][j] : INFINITE_DISTANCE;
  for (int k = 0; k < NODES; k++)
    for (int i = 0; i < NODES; i++) {
      int32_t via = all_pairs[i][k];
      if (via == INFINITE_DISTANCE) continue;
      for (int j = 0; j < NODES; j++)
        if (via + all_pairs[k][j] < all_pairs[i][j]) all_pairs[i][j] = via + all_pairs[k][j];
    }
}

int main(void) {
  kernel_seed(15);
  make_graph();
  Checksum sum = CHECKSUM_INIT;
  for (int pass = 0; pass < PASSES; pass++) {
    floyd_warshall();
    uint64_t total = 0, hops = 0, mismatches = 0;
    for (int s = 0; s < SOURCES; s++) {
      int source = s * NODES / SOURCES;
      dijkstra(source);
      hops += path_hops();
      for (int i = 0; i < NODES; i++) {
        total += (uint64_t)distance[i];
        mismatches += distance[i] != all_pairs[source][i];
      }
    }
    sum = checksum_add(sum, total);
    sum = checksum_add(sum, hops);
    sum = checksum_add(sum, mismatches);
    /* the next pass searches a slightly different graph */
    weight[pass][NODES - 1 - pass] = 1 + pass;
  }
  checksum_print("dijkstra", sum);
  return 0;
}
