// Runs the fused BFS kernels (grblas_gpu.kernels.bfs's CUDA source, included as KERNELS) on
// the CPU through simt.h, driven as kernels/bfs.py's Levels drives them on a GPU: start,
// then batches of (list, level) launches until the stop flag.
//   usage: bfs_main S.bin T.bin source alpha beta can_pull grid out.bin
// S.bin, T.bin: int64 n, int64 m, then the CSR pointers (PTR) and indices (IDX);
// out.bin: dist then parent (int32, n each).
#include "simt.h"
#include <cstdio>
#include <cstdlib>
#include KERNELS

template <class T> static std::vector<T> read_array(FILE* f, long long k) {
    std::vector<T> v(k + 1);
    if (k && fread(v.data(), sizeof(T), k, f) != (size_t)k) exit(2);
    return v;
}

struct Csr { long long n, m; std::vector<PTR> ptr; std::vector<IDX> idx; };

static Csr read_csr(const char* path) {
    FILE* f = fopen(path, "rb");
    if (!f) exit(2);
    Csr g;
    if (fread(&g.n, 8, 1, f) != 1 || fread(&g.m, 8, 1, f) != 1) exit(2);
    g.ptr = read_array<PTR>(f, g.n + 1);
    g.idx = read_array<IDX>(f, g.m);
    fclose(f);
    return g;
}

int main(int argc, char** argv) {
    if (argc != 9) return 2;
    Csr S = read_csr(argv[1]), T = read_csr(argv[2]);
    const long long source = atoll(argv[3]);
    const double alpha = atof(argv[4]), beta = atof(argv[5]);
    const int can_pull = atoi(argv[6]);
    const unsigned grid = (unsigned)atoi(argv[7]);
    alignas(8) static unsigned long long words[32] = {};   // (Levels' state array)
    State* s = reinterpret_cast<State*>(words);
    const long long n = S.n;
    std::vector<int> dist(n + 1), parent(n + 1), list0(n + 1), list1(n + 1);
    std::vector<long long> offsets0(n + 1), offsets1(n + 1);
    std::vector<int> u0, u1(n + 1), u2(n + 1);   // (the unreached lists: Levels' as well)
    for (long long v = 0; v < n; ++v) if (T.ptr[v + 1] != T.ptr[v]) u0.push_back((int)v);
    u0.push_back(0);
    launch(grid, 256, bfs_start, s, dist.data(), parent.data(), (const PTR*)S.ptr.data(), n,
           S.m, can_pull, source, alpha, beta, list0.data(), offsets0.data(),
           (long long)u0.size() - 1);
    for (int batch = 0; !s->done; ++batch) {
        if (batch > n + 1) return 3;   // (a search that never ends)
        for (int k = 0; k < BATCH; ++k) {
            launch(grid, 256, bfs_list, s, (const PTR*)S.ptr.data(), list0.data(),
                   list1.data(), offsets0.data(), offsets1.data(), u0.data(), u1.data(),
                   u2.data());
            launch(grid, 256, bfs_level, s, (const PTR*)S.ptr.data(), (const IDX*)S.idx.data(),
                   (const PTR*)T.ptr.data(), (const IDX*)T.idx.data(), list0.data(),
                   list1.data(), offsets0.data(), offsets1.data(), u0.data(), u1.data(),
                   u2.data());
        }
    }
    FILE* f = fopen(argv[8], "wb");
    fwrite(dist.data(), 4, n, f);
    fwrite(parent.data(), 4, n, f);
    fclose(f);
    return 0;
}
