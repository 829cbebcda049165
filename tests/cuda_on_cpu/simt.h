// A CPU stand-in for the CUDA execution model: enough of it to run a generated kernel's
// logic on a machine without a GPU (tests/test_cuda_on_cpu.py), for kernels whose warp
// intrinsics and barriers are reached by every thread of the warp / block (FULL_MASK).
// Each block's threads are std::threads and blocks run one after another, so a static in a
// function serves as __shared__; warp intrinsics exchange values through a per-warp
// barrier; atomics are std::atomic_ref. It checks what a kernel computes (its indexing,
// its warp scans, its atomics' protocol, its last-block logic), not its speed, and not
// the GPU's weaker memory ordering: every thread here sees the others' writes in order.
#pragma once
#include <atomic>
#include <barrier>
#include <cstring>
#include <thread>
#include <vector>
#include <memory>
#define __global__
#define __device__
#define __forceinline__ inline
#define __restrict__ __restrict
#define __shared__ static
#define __launch_bounds__(...)
struct Dim { unsigned x = 1, y = 1, z = 1; };
inline thread_local Dim threadIdx, blockIdx;
inline Dim blockDim, gridDim;
struct Warp { std::barrier<> bar{32}; unsigned long long slot[32]; };
inline thread_local Warp* warp_ctx;
inline std::barrier<>* block_bar;
inline void __syncthreads() { block_bar->arrive_and_wait(); }
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_system() { __threadfence(); }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __ffs(unsigned x) { return __builtin_ffs((int)x); }
template <class T> unsigned long long bits_of(T v) {
    unsigned long long b = 0;
    std::memcpy(&b, &v, sizeof(T));
    return b;
}
template <class T> T of_bits(unsigned long long b) {
    T v;
    std::memcpy(&v, &b, sizeof(T));
    return v;
}
template <class T> T exchange(T v, int from_lane) {
    int lane = threadIdx.x & 31;
    warp_ctx->slot[lane] = bits_of(v);
    warp_ctx->bar.arrive_and_wait();
    T r = of_bits<T>(warp_ctx->slot[from_lane]);
    warp_ctx->bar.arrive_and_wait();
    return r;
}
inline unsigned __ballot_sync(unsigned, bool p) {
    int lane = threadIdx.x & 31;
    warp_ctx->slot[lane] = p;
    warp_ctx->bar.arrive_and_wait();
    unsigned r = 0;
    for (int i = 0; i < 32; ++i) if (warp_ctx->slot[i]) r |= 1u << i;
    warp_ctx->bar.arrive_and_wait();
    return r;
}
template <class T> T __shfl_sync(unsigned, T v, int src) { return exchange(v, src); }
template <class T> T __shfl_up_sync(unsigned, T v, int d) {
    int lane = threadIdx.x & 31; return exchange(v, lane >= d ? lane - d : lane); }
template <class T> T __shfl_down_sync(unsigned, T v, int d) {
    int lane = threadIdx.x & 31; return exchange(v, lane + d < 32 ? lane + d : lane); }
template <class T> T __shfl_xor_sync(unsigned, T v, int m) {
    int lane = threadIdx.x & 31; return exchange(v, lane ^ m); }
template <class T> T atomicAdd(T* p, T v) { return std::atomic_ref<T>(*p).fetch_add(v); }
template <class T> T atomicCAS(T* p, T cmp, T val) {
    std::atomic_ref<T>(*p).compare_exchange_strong(cmp, val);   // (cmp becomes the old value)
    return cmp;
}
template <class F, class... A> void launch(unsigned grid, unsigned block, F f, A... args) {
    gridDim.x = grid; blockDim.x = block;
    for (unsigned b = 0; b < grid; ++b) {
        std::barrier<> bar(block); block_bar = &bar;
        std::vector<std::unique_ptr<Warp>> warps;
        for (unsigned w = 0; w < block / 32; ++w) warps.emplace_back(new Warp);
        std::vector<std::thread> ts;
        for (unsigned t = 0; t < block; ++t)
            ts.emplace_back([&, t] {
                threadIdx.x = t;
                blockIdx.x = b;
                warp_ctx = warps[t / 32].get();
                f(args...);
            });
        for (auto& th : ts) th.join();
    }
}
