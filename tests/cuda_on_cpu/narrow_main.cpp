// Runs the narrow product's kernels (grblas_gpu.kernels.narrow's CUDA source, included as
// KERNELS) on the CPU through simt.h, driven as kernels/narrow.py's _narrow_cuda drives them
// (narrow_long launched whether or not a row was listed).
//   usage: narrow_main in.bin out.bin grid
// in.bin: int64 n, nb, nnz(A), nnz(B), nm (mask entries), am, bm; then Ap, Aj (IA), Ax (X),
// Bp, Bj (IB), Bx (X), mi (IR), mj (IM), mptr (IM, n + 1), term (Z); arrays of length 0
// are sent with one element.
// out.bin, modes 0 and 2: T's pointers and columns (int64), values (Z); mode 1: a present
// byte and a value (Z) per mask entry.
#include "simt.h"
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include KERNELS

// an array (std::vector<bool> has no data())
template <class T> struct Buf {
    std::unique_ptr<T[]> p;
    explicit Buf(long long k, T fill = T()) : p(new T[k < 1 ? 1 : k]) {
        for (long long i = 0; i < (k < 1 ? 1 : k); ++i) p[i] = fill;
    }
    T* data() { return p.get(); }
    T& operator[](long long i) { return p[i]; }
};

template <class T> static Buf<T> get(FILE* f, long long k) {
    if (k < 1) k = 1;
    Buf<T> v(k);
    if (fread(v.data(), sizeof(T), k, f) != (size_t)k) exit(2);
    return v;
}

int main(int argc, char** argv) {
    if (argc != 4) return 2;
    FILE* f = fopen(argv[1], "rb");
    if (!f) return 2;
    long long h[7];
    if (fread(h, 8, 7, f) != 7) return 2;
    const long long n = h[0], nb = h[1], na = h[2], nbb = h[3], nm = h[4], am = h[5], bm = h[6];
    auto Ap = get<IA>(f, n + 1); auto Aj = get<IA>(f, na); auto Ax = get<X>(f, na);
    auto Bp = get<IB>(f, nb + 1); auto Bj = get<IB>(f, nbb); auto Bx = get<X>(f, nbb);
    auto mi = get<IR>(f, nm); auto mj = get<IM>(f, nm); auto mptr = get<IM>(f, n + 1);
    const Z term = get<Z>(f, 1)[0];
    fclose(f);
    const unsigned grid = (unsigned)atoi(argv[3]);
    Buf<unsigned> bbits(nb + 1);
    Buf<X> bdense((nb + 1) * K);
    launch(grid, 256, narrow_scatter, (const IB*)Bp.data(), (const IB*)Bj.data(),
           (const X*)Bx.data(), bm, nb, bbits.data(), bdense.data());
    // the long rows' list (narrow_rows lists, narrow_long folds a block a row)
    Buf<unsigned long long> nlong(1, 0);
    const long long nwork = MODE == 1 ? nm : n;
    Buf<long long> long_rows(nwork + 1);
    Buf<unsigned> long_allow(nwork + 1);
    FILE* o = fopen(argv[2], "wb");
    if (MODE == 1) {
        Buf<unsigned char> present(nm + 1, 0);
        Buf<Z> tvals(nm + 1);
        launch(grid, 256, narrow_rows, (const IA*)Ap.data(), (const IA*)Aj.data(),
               (const X*)Ax.data(), am, (const unsigned*)bbits.data(),
               (const X*)bdense.data(), (const IR*)mi.data(), (const IM*)mj.data(),
               (const IM*)mptr.data(), nm, term, (unsigned*)nullptr, (Z*)nullptr,
               present.data(), tvals.data(), nlong.data(), long_rows.data(),
               long_allow.data());
        launch(grid, 256, narrow_long, (const IA*)Ap.data(), (const IA*)Aj.data(),
               (const X*)Ax.data(), am, (const unsigned*)bbits.data(),
               (const X*)bdense.data(), (const IR*)mi.data(), (const IM*)mj.data(),
               (const IM*)mptr.data(), nm, term, (unsigned*)nullptr, (Z*)nullptr,
               present.data(), tvals.data(), nlong.data(), long_rows.data(),
               long_allow.data());
        fwrite(present.data(), 1, nm, o);
        fwrite(tvals.data(), sizeof(Z), nm, o);
    } else {
        Buf<unsigned> tbits(n + 1, 0xdeadbeefu);   // (every row must be written)
        Buf<Z> tdense((n + 1) * K);
        launch(grid, 256, narrow_rows, (const IA*)Ap.data(), (const IA*)Aj.data(),
               (const X*)Ax.data(), am, (const unsigned*)bbits.data(),
               (const X*)bdense.data(), (const IR*)mi.data(), (const IM*)mj.data(),
               (const IM*)mptr.data(), n, term, tbits.data(), tdense.data(),
               (unsigned char*)nullptr, (Z*)nullptr, nlong.data(), long_rows.data(),
               long_allow.data());
        launch(grid, 256, narrow_long, (const IA*)Ap.data(), (const IA*)Aj.data(),
               (const X*)Ax.data(), am, (const unsigned*)bbits.data(),
               (const X*)bdense.data(), (const IR*)mi.data(), (const IM*)mj.data(),
               (const IM*)mptr.data(), n, term, tbits.data(), tdense.data(),
               (unsigned char*)nullptr, (Z*)nullptr, nlong.data(), long_rows.data(),
               long_allow.data());
        Buf<long long> counts(n + 1), tp(n + 1, 0);
        launch(grid, 256, narrow_counts, (const unsigned*)tbits.data(), n, counts.data());
        for (long long r = 0; r < n; ++r) tp[r + 1] = tp[r] + counts[r];
        Buf<long long> tj(tp[n] + 1);
        Buf<Z> tx(tp[n] + 1);
        launch(grid, 256, narrow_fill, (const unsigned*)tbits.data(), (const Z*)tdense.data(),
               (const long long*)tp.data(), n, tj.data(), tx.data());
        fwrite(tp.data(), 8, n + 1, o);
        fwrite(tj.data(), 8, tp[n], o);
        fwrite(tx.data(), sizeof(Z), tp[n], o);
    }
    fclose(o);
    return 0;
}
