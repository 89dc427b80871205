internal import COpenBLAS

/// Row-major single-precision GEMM: C = alpha·op(A)·op(B) + beta·C, with explicit leading dimensions.
@inline(__always)
func sgemm(
    transA: Bool = false, transB: Bool = false, m: Int, n: Int, k: Int, alpha: Float = 1,
    a: UnsafePointer<Float>, lda: Int, b: UnsafePointer<Float>, ldb: Int, beta: Float = 0,
    c: UnsafeMutablePointer<Float>, ldc: Int
) {
    cblas_sgemm(
        CblasRowMajor, transA ? CblasTrans : CblasNoTrans, transB ? CblasTrans : CblasNoTrans,
        Int32(m), Int32(n), Int32(k), alpha, a, Int32(lda), b, Int32(ldb), beta, c, Int32(ldc))
}

/// Sets OpenBLAS's thread count for the whole process (OpenBLAS has no per-call setting).
func setBLASThreads(_ count: Int) { openblas_set_num_threads(Int32(count)) }
