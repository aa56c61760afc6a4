/*
 * pce_backend.h: the plugin ABI of pce-prover NTT/MSM backends, version 2.
 *
 * Version 2 (incompatible with version 1, whose plugins the host refuses
 * with a message naming both versions): optional and domain-specific
 * operations are found by name through get_proc_address instead of being
 * vtable fields (version 1 had qap_h as the last field), and the host may
 * hand the plugin a log callback (set_logger).
 *
 * A backend is a shared library exporting one symbol, PCE_BACKEND_ENTRY_SYMBOL,
 * of type pce_backend_entry_fn. The host calls it with the newest ABI version
 * it speaks; the plugin returns a pointer to a static vtable of that version,
 * or NULL after storing the version it speaks in *plugin_abi_version.
 *
 * Rules (see docs/backend-abi.md):
 *  - Only the types below cross the boundary. Every call returns a
 *    pce_status; on failure the plugin keeps a message for the calling
 *    thread, which the host copies out with last_error().
 *  - Each side frees what it allocated: handles (devices, NTT domains, MSM
 *    bases) are created and destroyed by the plugin; buffers passed in by the
 *    host stay owned by the host.
 *  - No exception or panic may cross the boundary.
 *  - Calls come from any thread. One prover takes turns on its device
 *    for ntt, qap_h, msm and per-proof uploads, but ntt_domain_create,
 *    device_memory and handle releases may run beside them, several
 *    provers may share a device (the daemon's workers_per_device), and
 *    the fallback device (CPU by default) serves every prover at once:
 *    accept any call on a device while others run on it. Host buffers
 *    are 8-byte aligned (no more) pageable memory, never pinned: stage
 *    through your own page-locked buffers for DMA.
 *  - The host never sizes its work by device memory: bases and vectors
 *    may exceed it (SRS queries of tens of GiB); keep what does not fit
 *    on the host and stream it.
 *  - ntt_domain_create, ntt, qap_h, msm_bases_upload and msm are timed:
 *    one running past scale * (300 s + 10 us per element) ends the process
 *    with exit status 75 (scale: PCE_BACKEND_DEADLINE_SCALE, 1 by default,
 *    0 for none). device_open is not timed: compile kernels there.
 *  - The vtable struct only ever grows at its end; struct_size tells the host
 *    which fields a plugin provides. An incompatible change bumps
 *    PCE_BACKEND_ABI_VERSION. Operations a backend may lack are looked up
 *    by name (get_proc_address), so the vtable stays curve- and
 *    proof-agnostic.
 *  - Libraries are never unloaded.
 *  - A plugin that finds no driver or no device says so with
 *    PCE_ERR_NO_DRIVER / PCE_ERR_NO_DEVICE; loading the library itself must
 *    succeed on machines without the vendor's runtime.
 */
#ifndef PCE_BACKEND_H
#define PCE_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PCE_BACKEND_ABI_VERSION 2u
#define PCE_BACKEND_ENTRY_SYMBOL "pce_backend_entry"

/* ---- status codes ------------------------------------------------------ */

typedef int32_t pce_status;

#define PCE_OK 0                 /* success */
#define PCE_ERR_INVALID_ARGUMENT 1 /* bad pointer, size, index or flag */
#define PCE_ERR_UNSUPPORTED 2    /* valid request this backend cannot serve */
#define PCE_ERR_NO_DRIVER 3      /* the vendor runtime/driver is not installed */
#define PCE_ERR_NO_DEVICE 4      /* the runtime is there, the device is not */
#define PCE_ERR_OUT_OF_MEMORY 5  /* host or device allocation failed */
#define PCE_ERR_DEVICE 6         /* the device or its runtime reported an error */
#define PCE_ERR_INTERNAL 7       /* a bug in the plugin (e.g. a caught panic) */
/* Hosts must treat any other value as an error and report it as a number. */

/* ---- data layouts ------------------------------------------------------ */

/* Element of the BLS12-381 scalar field in Montgomery form: blst_fr. */
typedef struct { uint64_t l[4]; } pce_fr;
/* MSM scalar: canonical (not Montgomery) integer < r, little-endian limbs. */
typedef struct { uint64_t l[4]; } pce_scalar;
/* Element of the base field in Montgomery form: blst_fp. */
typedef struct { uint64_t l[6]; } pce_fp;
typedef struct { pce_fp c0, c1; } pce_fp2;
/* Affine points as blst_p1_affine / blst_p2_affine; all-zero is infinity. */
typedef struct { pce_fp x, y; } pce_g1_affine;
typedef struct { pce_fp2 x, y; } pce_g2_affine;
/* Jacobian points as blst_p1 / blst_p2; z = 0 is infinity. */
typedef struct { pce_fp x, y, z; } pce_g1_projective;
typedef struct { pce_fp2 x, y, z; } pce_g2_projective;

/* Sizes in bytes of the layouts above. */
#define PCE_FR_BYTES 32
#define PCE_SCALAR_BYTES 32
#define PCE_FP_BYTES 48
#define PCE_FP2_BYTES 96
#define PCE_G1_AFFINE_BYTES 96
#define PCE_G2_AFFINE_BYTES 192
#define PCE_G1_PROJECTIVE_BYTES 144
#define PCE_G2_PROJECTIVE_BYTES 288

/* The fields and the NTT domain, as big-endian hex (docs/backend-abi.md;
 * tests/documented_constants.rs checks them against blstrs). A pce_fr or
 * pce_fp holds x * R mod r (or mod p) as little-endian 64-bit limbs.
 *   scalar field modulus r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001
 *   Montgomery R of Fr, 2^256 mod r = 0x1824b159acc5056f998c4fefecbc4ff55884b7fa0003480200000001fffffffe
 *   R^2 of Fr, 2^512 mod r = 0x0748d9d99f59ff1105d314967254398f2b6cedcb87925c23c999e990f3f29c6d
 *   base field modulus p = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab
 *   Montgomery R of Fp, 2^384 mod p = 0x15f65ec3fa80e4935c071a97a256ec6d77ce5853705257455f48985753c758baebf4000bc40c0002760900000002fffd
 *   R^2 of Fp, 2^768 mod p = 0x11988fe592cae3aa9a793e85b519952d67eb88a9939d83c08de5476c4c95b6d50a76e6a609d104f1f4df1f341c341746
 *   2^32-th root of unity of Fr = 0x16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b
 *   coset generator g of Fr = 0x0000000000000000000000000000000000000000000000000000000000000007
 * The domain of size 2^k is generated by the 2^32-th root of unity raised
 * to 2^(32-k). */

/* Opaque handles, allocated and freed by the plugin. */
typedef struct pce_device pce_device;
typedef struct pce_ntt_domain pce_ntt_domain;
typedef struct pce_msm_bases pce_msm_bases;

typedef struct {
  uint32_t struct_size;   /* set by the host to sizeof(pce_device_info) */
  uint32_t compute_units; /* cores, SMs or compute units; 0 if unknown */
  uint64_t memory_bytes;  /* device memory (host memory for a CPU backend);
                           * shown to users, never used to size work */
  uint8_t id[16];         /* stable identifier: the UUID where the API has one */
  char name[128];         /* NUL-terminated */
  char vendor[64];        /* NUL-terminated */
} pce_device_info;

/* NTT directions and flags. The domain of size n = 2^log_size is generated
 * by the n-th root of unity derived from the field's 2^32-th root of unity
 * (above; blstrs Scalar::ROOT_OF_UNITY squared down), as bellperson's
 * EvaluationDomain does. The inverse includes the factor 1/n. With
 * PCE_NTT_COSET the forward transform evaluates on g·H (coefficient i is
 * first multiplied by g^i) and the inverse interpolates from g·H (result i
 * is multiplied by g^-i), g = 7, the field's multiplicative generator. */
#define PCE_NTT_FORWARD 0u
#define PCE_NTT_INVERSE 1u
#define PCE_NTT_COSET 1u

#define PCE_G1 1u
#define PCE_G2 2u

/* Bases flag: the host keeps the points alive and unchanged until
 * msm_bases_release; a plugin may reference them instead of copying. */
#define PCE_BASES_HOST_RESIDENT 1u

/* ---- logging ----------------------------------------------------------- */

#define PCE_LOG_ERROR 1u
#define PCE_LOG_WARN 2u
#define PCE_LOG_INFO 3u
#define PCE_LOG_DEBUG 4u
#define PCE_LOG_TRACE 5u

/* The host's log sink: level is a PCE_LOG_* value, target the plugin's
 * module or component; both strings are NUL-terminated and valid during the
 * call only. The host accepts calls from any thread. */
typedef void (*pce_log_fn)(uint32_t level, const char *target, const char *message);

/* ---- the vtable -------------------------------------------------------- */

typedef struct pce_backend_vtable {
  uint32_t abi_version; /* PCE_BACKEND_ABI_VERSION the plugin implements */
  uint32_t struct_size; /* sizeof(pce_backend_vtable) as the plugin knows it */
  const char *name;        /* short name, e.g. "cpu"; static, NUL-terminated */
  const char *description; /* implementation and version; static */

  /* Copies the message of the last failed call on this thread into buf
   * (at most cap bytes, NUL-terminated) and returns its full length. A
   * successful call clears it: last_error then returns 0 and writes "". */
  size_t (*last_error)(char *buf, size_t cap);

  /* The operation called `name` (see "Operations found by name" below), or
   * NULL when the plugin does not have it; cast the result to the
   * operation's function type. Unknown names give NULL. The host asks at
   * each load, after set_logger and before device_count, and keeps the
   * answers for the library's life: they must not depend on a runtime
   * or device found later. */
  void *(*get_proc_address)(const char *name);

  /* Optional (may be NULL). The host calls it at each load, right after
   * the entry point and before any other call of that load, with its log
   * sink and the most verbose PCE_LOG_* level it wants (0: none);
   * log == NULL withdraws the sink. One process may load the same library
   * more than once (backend-check cpu --reference cpu), so the entry point
   * and set_logger may come again while devices of an earlier load are
   * open: a later call replaces the sink. Without a sink (a host that
   * never calls it) a plugin logs warnings and errors to stderr or not at
   * all, and works the same. */
  void (*set_logger)(pce_log_fn log, uint32_t max_level);

  /* No usable device: PCE_ERR_NO_DEVICE (PCE_ERR_NO_DRIVER without the
   * runtime), never a count of 0, which the host reads as a working
   * backend with nothing to prove on. */
  pce_status (*device_count)(uint32_t *count);
  pce_status (*device_info)(uint32_t index, pce_device_info *info);
  /* Not timed: load or compile kernels here, not in the first operation. */
  pce_status (*device_open)(uint32_t index, pce_device **device);
  void (*device_close)(pce_device *device);

  /* Prepares transforms of size 2^log_size; the domain is reusable and may
   * be used from several threads at once, always with the device it was
   * created on (as bases are: with another device, a plugin returns
   * PCE_ERR_INVALID_ARGUMENT where it can tell). log_size outside 1..32:
   * PCE_ERR_INVALID_ARGUMENT. A size the device cannot serve (above its
   * limit, or whose tables do not fit): PCE_ERR_UNSUPPORTED or
   * PCE_ERR_OUT_OF_MEMORY, never a crash. */
  pce_status (*ntt_domain_create)(pce_device *device, uint32_t log_size,
                                  pce_ntt_domain **domain);
  void (*ntt_domain_destroy)(pce_ntt_domain *domain);
  /* Transforms `batch` vectors of 2^log_size elements stored one after the
   * other in `data`, in place; natural order in and out. batch == 0 is a
   * successful no-op (data may then be NULL). */
  pce_status (*ntt)(pce_device *device, const pce_ntt_domain *domain,
                    uint32_t direction, uint32_t flags, pce_fr *data,
                    uint32_t batch);

  /* Makes `count` affine points of `group` (PCE_G1: pce_g1_affine,
   * PCE_G2: pce_g2_affine) available for MSMs under a handle. count may
   * be 0 (a query can be empty): return a non-NULL handle and do not read
   * `points` (then NULL or dangling). count is not bounded by device
   * memory. A backend without MSMs in a group (G2) may return
   * PCE_ERR_UNSUPPORTED here, as from msm: the host then runs the MSMs
   * over those points on its fallback device. Any other failure fails
   * the prover. */
  pce_status (*msm_bases_upload)(pce_device *device, uint32_t group,
                                 const void *points, uint64_t count,
                                 uint32_t flags, pce_msm_bases **bases);
  void (*msm_bases_release)(pce_msm_bases *bases);
  /* For k < batch: out[k] = sum_{i < count} scalars[k*count + i] *
   * bases[offset + i], with out of the bases' group in projective form
   * (pce_g1_projective or pce_g2_projective). count may be 0 with
   * batch > 0 (the host sends it): PCE_OK, each out[k] infinity, scalars
   * (then dangling) not read. offset + count beyond the uploaded points
   * (or overflowing): PCE_ERR_INVALID_ARGUMENT, out untouched, whatever
   * the batch. batch == 0 within range: a successful no-op (scalars and
   * out may be NULL). A backend without MSMs in a group (G2) returns
   * PCE_ERR_UNSUPPORTED with a message, out untouched: the host then runs
   * that MSM on its fallback device. */
  pce_status (*msm)(pce_device *device, const pce_msm_bases *bases,
                    uint64_t offset, uint64_t count, const pce_scalar *scalars,
                    uint32_t batch, void *out);
} pce_backend_vtable;

/* Size of a version-2 vtable: the least struct_size a plugin may report.
 * Fields appended later within version 2 will be optional. */
#define PCE_BACKEND_VTABLE_V2_SIZE                                             \
  (offsetof(pce_backend_vtable, msm) + sizeof(void (*)(void)))

/* ---- operations found by name ------------------------------------------ *
 * Optional and domain-specific operations. A host that finds NULL does
 * without (the documented fallback); a plugin returns one only if it
 * implements it fully. */

/* "qap_h": the QAP step of a Groth16 proof in one call, so a GPU keeps the
 * data on the device. `data` holds a, b, c: three vectors of the domain's
 * size n, one after the other, the evaluations on the domain H of the
 * A, B and C rows of a SATISFIED R1CS, zero padded: a[i] * b[i] == c[i] for
 * every i < n (the first m rows carry the constraints, rows m..n are 0).
 * On return the first vector holds the n coefficients of
 * h = (A*B - C) / (X^n - 1), the last of which is 0; the other two vectors
 * are left undefined. For inputs that are not such evaluations the result
 * is unspecified (any value a correct algorithm for satisfied inputs gives
 * is allowed). The host computes the same h itself with six transforms when
 * the operation is absent: the derivation (crates/groth16-prover/src/qap.rs)
 * is
 *   A, B, C = inverse NTT of a, b, c;  gamma = g^n;
 *   P = inverse coset NTT of (coset NTT(A) * coset NTT(B))  (= L + gamma U
 *       where A*B = L + X^n U);
 *   h = (C - P) / (1 - gamma)  (= U, since C = L + U for a satisfied R1CS).
 * The bundled GPU plugins implement exactly this. A plugin may decline a
 * call with PCE_ERR_UNSUPPORTED only with `data` untouched: the host then
 * computes h itself from the same buffer. */
#define PCE_PROC_QAP_H "qap_h"
typedef pce_status (*pce_qap_h_fn)(pce_device *device,
                                   const pce_ntt_domain *domain, pce_fr *data);

/* "device_memory": the memory of an open device, in bytes: `free` can be
 * allocated now, `total` is what the plugin may use (host memory for a CPU
 * backend). The host reports it (daemon status and metrics, benchmarks)
 * and never sizes its work by it. Called at any time from any thread, it
 * must not wait for an operation running on the device (answer with the
 * last reading instead). */
#define PCE_PROC_DEVICE_MEMORY "device_memory"
typedef pce_status (*pce_device_memory_fn)(pce_device *device, uint64_t *free,
                                           uint64_t *total);

/* "ntt_scratch_bytes": the host memory, in bytes, one ntt or qap_h call on
 * a domain of size 2^log_size allocates beyond the caller's data (scratch
 * buffers), so the host's memory budget can leave room for it. Absent
 * means 0. */
#define PCE_PROC_NTT_SCRATCH_BYTES "ntt_scratch_bytes"
typedef pce_status (*pce_ntt_scratch_bytes_fn)(pce_device *device,
                                               uint32_t log_size,
                                               uint64_t *bytes);

/* "msm_scratch_bytes": the host memory, in bytes, one msm call of count
 * terms in group (PCE_G1 or PCE_G2) allocates beyond the caller's data (a
 * GPU backend's term lists, split on the host before upload), so the
 * host's memory budget can leave room for it. An upper bound that does
 * not depend on the device's state. Absent means 0. */
#define PCE_PROC_MSM_SCRATCH_BYTES "msm_scratch_bytes"
typedef pce_status (*pce_msm_scratch_bytes_fn)(pce_device *device,
                                               uint32_t group, uint64_t count,
                                               uint64_t *bytes);

/* "device_host_bytes": the most host memory, in bytes, an open device holds
 * for its own use from its opening to its closing, beyond the caller's data
 * and the scratch of single calls (a GPU backend's staging buffers for its
 * copies), so the host's memory budget counts it once per open device.
 * Absent means 0. */
#define PCE_PROC_DEVICE_HOST_BYTES "device_host_bytes"
typedef pce_status (*pce_device_host_bytes_fn)(pce_device *device,
                                               uint64_t *bytes);

typedef const pce_backend_vtable *(*pce_backend_entry_fn)(
    uint32_t host_abi_version, uint32_t *plugin_abi_version);

/* The one exported symbol. */
const pce_backend_vtable *pce_backend_entry(uint32_t host_abi_version,
                                            uint32_t *plugin_abi_version);

#ifdef __cplusplus
}
#endif

#endif /* PCE_BACKEND_H */
