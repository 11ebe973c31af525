// blockscope's <mma.h> for the CPU simulator: nvcuda::wmma with BF16 or FP16 inputs and FP32
// accumulation, shapes m16n16k16, m32n8k16 and m8n32k16. Appended after cpu_cuda_fp16.h and
// cpu_cuda_bf16.h when the kernel includes <mma.h> (the line stays, blank).
//
// Fragments are laid out per lane as the PTX ISA's mma.m16n8k16 (what the tensor cores hold and
// what blockscope's fragment views draw): lane l is group g = l / 4, thread t = l % 4, and
//   matrix_a (16 x 16): x[0..1] = A[g][2t..2t+1], x[2..3] = A[g+8][2t..], x[4..5] = A[g][2t+8..],
//                       x[6..7] = A[g+8][2t+8..]                    (m32: a second one, rows +16)
//   matrix_b (16 x 8 pieces, n / 8 of them): x[4p..4p+1] = B[2t..2t+1][8p+g], x[4p+2..] = B[2t+8..][8p+g]
//   accumulator (16 x 8 pieces): x[..0..1] = C[g][8p+2t..], x[..2..3] = C[g+8][8p+2t..]
//   m8n32k16 is m32n8k16 transposed (see bs_position).
// These are the layouts an H200 gives BF16 fragments (checked element by element, all three
// shapes). num_elements is M*K/32, K*N/32 and M*N/32 (8 for every m16n16k16 fragment); the GPU
// keeps FP16 A and B twice (16 elements, the second 8 a copy), which the simulator does not.
//
// load_matrix_sync, mma_sync and store_matrix_sync are warp-collective, as on the GPU: every lane
// of the warp must call them (the simulator's warp barrier; a lane that does not is reported as a
// deadlock). mma_sync gathers the warp's A and B into the warp's exchange area, meets, and each
// lane computes its own accumulator elements in float: products of two BF16/FP16 values are
// exact in float, sums are in k order (the tensor cores add in another order and precision, so
// results may differ from the GPU's in the last bits).
#ifndef BS_CPU_MMA_H
#define BS_CPU_MMA_H

namespace nvcuda {
namespace wmma {
template <class A, class B> struct bs_is_same_use { enum { value = 0 }; };
template <class A> struct bs_is_same_use<A, A> { enum { value = 1 }; };
// The element type a load or store addresses: T* (and __shared__ arrays), bs_in<T>, bs_out<T>.
template <class P> struct bs_elem;
template <class T> struct bs_elem<T*> { typedef T type; };
template <class T> struct bs_elem<const T*> { typedef T type; };
template <class T> struct bs_elem<bs_in<T> > { typedef T type; };
template <class T> struct bs_elem<bs_in<const T> > { typedef T type; };
template <class T> struct bs_elem<bs_out<T> > { typedef T type; };
struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
enum layout_t { mem_row_major, mem_col_major };

template <class Use, int M, int N, int K> struct bs_shape;  // elements a lane holds
template <int M, int N, int K> struct bs_shape<matrix_a, M, N, K> { enum { rows = M, cols = K, count = M * K / 32 }; };
template <int M, int N, int K> struct bs_shape<matrix_b, M, N, K> { enum { rows = K, cols = N, count = K * N / 32 }; };
template <int M, int N, int K> struct bs_shape<accumulator, M, N, K> { enum { rows = M, cols = N, count = M * N / 32 }; };

template <class T> struct bs_is_input { enum { value = 0 }; };
#ifdef BS_CPU_CUDA_FP16_H
template <> struct bs_is_input<__half> { enum { value = 1 }; };
#endif
#ifdef BS_CPU_CUDA_BF16_H
template <> struct bs_is_input<__nv_bfloat16> { enum { value = 1 }; };
#endif

template <class Use, int M, int N, int K, class T, class Layout = void>
class fragment {
  static_assert((M == 16 && N == 16 && K == 16) || (M == 32 && N == 8 && K == 16) || (M == 8 && N == 32 && K == 16),
                "the CPU simulator's wmma has the shapes m16n16k16, m32n8k16 and m8n32k16");
  static_assert(bs_is_same_use<Use, accumulator>::value || bs_is_input<T>::value,
                "matrix_a and matrix_b fragments hold __nv_bfloat16 or __half (include <cuda_bf16.h> or <cuda_fp16.h>)");
  static_assert(!bs_is_same_use<Use, accumulator>::value || bs_is_same_use<T, float>::value,
                "the CPU simulator's wmma accumulates in FP32: fragment<accumulator, M, N, K, float>");

 public:
  enum { num_elements = bs_shape<Use, M, N, K>::count };
  typedef T element_type;
  typedef T storage_element_type;
  T x[num_elements];
};

// (row, col) in the fragment's matrix of element e of lane `lane` (the layout above). m8n32k16
// is m32n8k16 transposed, as the hardware holds it (D^T = B^T A^T): its A is m32n8's B, its B
// m32n8's A and its accumulator m32n8's, each with row and column swapped (read from an H200).
template <class Use, int M, int N, int K> inline void bs_position(unsigned lane, int e, int& row, int& col) {
  if (M == 8) {
    if (bs_is_same_use<Use, matrix_a>::value) bs_position<matrix_b, 32, 8, 16>(lane, e, col, row);
    else if (bs_is_same_use<Use, matrix_b>::value) bs_position<matrix_a, 32, 8, 16>(lane, e, col, row);
    else bs_position<accumulator, 32, 8, 16>(lane, e, col, row);
    return;
  }
  const int g = (int)lane / 4, t = (int)lane % 4;
  if (bs_is_same_use<Use, matrix_a>::value) {  // 16 x 16 pieces, stacked along m
    const int tile = e / 8, f = e % 8;
    row = 16 * tile + g + 8 * ((f / 2) % 2);
    col = 2 * t + f % 2 + 8 * (f / 4);
  } else if (bs_is_same_use<Use, matrix_b>::value) {  // 16 x 8 pieces along n
    const int p = e / 4, f = e % 4;
    row = 2 * t + f % 2 + 8 * (f / 2);
    col = 8 * p + g;
  } else {  // 16 x 8 pieces, n fastest
    const int pieces_n = N / 8, piece = e / 4, f = e % 4;
    row = 16 * (piece / pieces_n) + g + 8 * (f / 2);
    col = 8 * (piece % pieces_n) + 2 * t + f % 2;
  }
}

template <class T> inline float bs_wmma_float(const T& v) { return (float)v; }
inline void bs_wmma_check_ldm(unsigned ldm, int bytes) {
  if ((ldm * (unsigned)bytes) % 16u != 0u)
    bs_fail("wmma: ldm must be a multiple of 16 bytes (8 BF16/FP16 or 4 FP32 elements), as on the GPU");
}

template <class Use, int M, int N, int K, class T, class L, class V>
inline void fill_fragment(fragment<Use, M, N, K, T, L>& f, const V& v) {
  for (int e = 0; e < fragment<Use, M, N, K, T, L>::num_elements; ++e) f.x[e] = T(v);
}

// A or B from memory (P: a pointer, a bs_in/bs_out view of a kernel argument, or a __shared__ array).
template <class Use, int M, int N, int K, class T, class L, class P>
inline void load_matrix_sync(fragment<Use, M, N, K, T, L>& f, P p, unsigned ldm) {
  static_assert(bs_is_same_use<typename bs_elem<P>::type, T>::value,
                "load_matrix_sync: the pointer's element type must be the fragment's (as on the GPU)");
  bs_wmma_check_ldm(ldm, (int)sizeof(T));
  __syncwarp(0xffffffffu);
  const unsigned lane = bs_lane();
  const bool row_major_layout = bs_is_same_use<L, row_major>::value;
  for (int e = 0; e < fragment<Use, M, N, K, T, L>::num_elements; ++e) {
    int r, c;
    bs_position<Use, M, N, K>(lane, e, r, c);
    f.x[e] = p[row_major_layout ? (long long)r * ldm + c : (long long)c * ldm + r];
  }
  __syncwarp(0xffffffffu);
}
// The accumulator, with its layout given at run time.
template <int M, int N, int K, class T, class P>
inline void load_matrix_sync(fragment<accumulator, M, N, K, T, void>& f, P p, unsigned ldm, layout_t layout) {
  bs_wmma_check_ldm(ldm, (int)sizeof(T));
  __syncwarp(0xffffffffu);
  const unsigned lane = bs_lane();
  for (int e = 0; e < fragment<accumulator, M, N, K, T, void>::num_elements; ++e) {
    int r, c;
    bs_position<accumulator, M, N, K>(lane, e, r, c);
    f.x[e] = p[layout == mem_row_major ? (long long)r * ldm + c : (long long)c * ldm + r];
  }
  __syncwarp(0xffffffffu);
}
template <int M, int N, int K, class T, class P>
inline void store_matrix_sync(P p, const fragment<accumulator, M, N, K, T, void>& f, unsigned ldm, layout_t layout) {
  bs_wmma_check_ldm(ldm, (int)sizeof(T));
  __syncwarp(0xffffffffu);
  const unsigned lane = bs_lane();
  for (int e = 0; e < fragment<accumulator, M, N, K, T, void>::num_elements; ++e) {
    int r, c;
    bs_position<accumulator, M, N, K>(lane, e, r, c);
    p[layout == mem_row_major ? (long long)r * ldm + c : (long long)c * ldm + r] = f.x[e];
  }
  __syncwarp(0xffffffffu);
}

// d = a * b + c for the warp: A and B as 16-bit patterns in the warp's exchange area (after the
// lane slots), then each lane's own elements of d.
template <class T> inline unsigned short bs_wmma_bits(const T& v) {
  unsigned short b;
  __builtin_memcpy(&b, &v, 2);
  return b;
}
template <class T> inline float bs_wmma_value(unsigned short b) {
  T v;
  __builtin_memcpy(&v, &b, 2);
  return (float)v;
}
template <int M, int N, int K, class TA, class LA, class TB, class LB, class TC>
inline void mma_sync(fragment<accumulator, M, N, K, TC, void>& d, const fragment<matrix_a, M, N, K, TA, LA>& a,
                     const fragment<matrix_b, M, N, K, TB, LB>& b, const fragment<accumulator, M, N, K, TC, void>& c) {
  static_assert(sizeof(TA) == 2 && sizeof(TB) == 2, "the CPU simulator's wmma takes BF16 or FP16 inputs");
  unsigned short* A = (unsigned short*)(bs_warp_area() + 256);  // M x K, row-major
  unsigned short* B = A + M * K;                                // K x N, row-major
  const unsigned lane = bs_lane();
  __syncwarp(0xffffffffu);
  for (int e = 0; e < fragment<matrix_a, M, N, K, TA, LA>::num_elements; ++e) {
    int r, col;
    bs_position<matrix_a, M, N, K>(lane, e, r, col);
    A[r * K + col] = bs_wmma_bits(a.x[e]);
  }
  for (int e = 0; e < fragment<matrix_b, M, N, K, TB, LB>::num_elements; ++e) {
    int r, col;
    bs_position<matrix_b, M, N, K>(lane, e, r, col);
    B[r * N + col] = bs_wmma_bits(b.x[e]);
  }
  __syncwarp(0xffffffffu);
  TC out[fragment<accumulator, M, N, K, TC, void>::num_elements];
  for (int e = 0; e < fragment<accumulator, M, N, K, TC, void>::num_elements; ++e) {
    int r, col;
    bs_position<accumulator, M, N, K>(lane, e, r, col);
    float acc = (float)c.x[e];
    for (int k = 0; k < K; ++k) acc += bs_wmma_value<TA>(A[r * K + k]) * bs_wmma_value<TB>(B[k * N + col]);
    out[e] = TC(acc);
  }
  __syncwarp(0xffffffffu);
  for (int e = 0; e < fragment<accumulator, M, N, K, TC, void>::num_elements; ++e) d.x[e] = out[e];
}
}  // namespace wmma
}  // namespace nvcuda
#endif
