/*
 * pce_backend.h: the plugin ABI of pce-prover NTT/MSM backends, version 1.
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
 *  - The vtable struct only ever grows at its end; struct_size tells the host
 *    which fields a plugin provides. An incompatible change bumps
 *    PCE_BACKEND_ABI_VERSION.
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

#define PCE_BACKEND_ABI_VERSION 1u
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

/* Opaque handles, allocated and freed by the plugin. */
typedef struct pce_device pce_device;
typedef struct pce_ntt_domain pce_ntt_domain;
typedef struct pce_msm_bases pce_msm_bases;

typedef struct {
  uint32_t struct_size;   /* set by the host to sizeof(pce_device_info) */
  uint32_t compute_units; /* cores, SMs or compute units; 0 if unknown */
  uint64_t memory_bytes;  /* device memory (host memory for a CPU backend) */
  uint8_t id[16];         /* stable identifier: the UUID where the API has one */
  char name[128];         /* NUL-terminated */
  char vendor[64];        /* NUL-terminated */
} pce_device_info;

/* NTT directions and flags. The domain of size n = 2^log_size is generated
 * by the n-th root of unity derived from the field's 2^32-th root of unity
 * (blstrs Scalar::ROOT_OF_UNITY squared down), as bellperson's
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

/* ---- the vtable -------------------------------------------------------- */

typedef struct pce_backend_vtable {
  uint32_t abi_version; /* PCE_BACKEND_ABI_VERSION the plugin implements */
  uint32_t struct_size; /* sizeof(pce_backend_vtable) as the plugin knows it */
  const char *name;        /* short name, e.g. "cpu"; static, NUL-terminated */
  const char *description; /* implementation and version; static */

  /* Copies the message of the last failed call on this thread into buf
   * (at most cap bytes, NUL-terminated) and returns its full length. */
  size_t (*last_error)(char *buf, size_t cap);

  pce_status (*device_count)(uint32_t *count);
  pce_status (*device_info)(uint32_t index, pce_device_info *info);
  pce_status (*device_open)(uint32_t index, pce_device **device);
  void (*device_close)(pce_device *device);

  /* Prepares transforms of size 2^log_size (1 <= log_size <= 32); the
   * domain is reusable and may be used from several threads at once. */
  pce_status (*ntt_domain_create)(pce_device *device, uint32_t log_size,
                                  pce_ntt_domain **domain);
  void (*ntt_domain_destroy)(pce_ntt_domain *domain);
  /* Transforms `batch` vectors of 2^log_size elements stored one after the
   * other in `data`, in place; natural order in and out. */
  pce_status (*ntt)(pce_device *device, const pce_ntt_domain *domain,
                    uint32_t direction, uint32_t flags, pce_fr *data,
                    uint32_t batch);

  /* Makes `count` affine points of `group` (PCE_G1: pce_g1_affine,
   * PCE_G2: pce_g2_affine) available for MSMs under a handle. */
  pce_status (*msm_bases_upload)(pce_device *device, uint32_t group,
                                 const void *points, uint64_t count,
                                 uint32_t flags, pce_msm_bases **bases);
  void (*msm_bases_release)(pce_msm_bases *bases);
  /* For k < batch: out[k] = sum_{i < count} scalars[k*count + i] *
   * bases[offset + i], with out of the bases' group in projective form
   * (pce_g1_projective or pce_g2_projective). count may be 0 (out is
   * infinity). */
  pce_status (*msm)(pce_device *device, const pce_msm_bases *bases,
                    uint64_t offset, uint64_t count, const pce_scalar *scalars,
                    uint32_t batch, void *out);

  /* ---- optional operations: added at the end, present when struct_size
   * covers them and the pointer is not NULL. Hosts fall back to the basic
   * operations otherwise, or when a call returns PCE_ERR_UNSUPPORTED. ---- */

  /* The QAP step of a Groth16 proof in one call, so a GPU keeps the data on
   * the device: `data` holds a, b, c (three vectors of the domain's size,
   * one after the other). Each is interpolated (inverse NTT) and evaluated
   * on the coset g·H (coset NTT); then a·b − c is divided by g^n − 1 (the
   * vanishing polynomial on the coset) and interpolated from the coset
   * (inverse coset NTT). On return the first vector holds the coefficients
   * of h; the other two are left undefined. */
  pce_status (*qap_h)(pce_device *device, const pce_ntt_domain *domain,
                      pce_fr *data);
} pce_backend_vtable;

/* Size of a version-1 vtable without the optional operations: the least
 * struct_size a plugin may report. */
#define PCE_BACKEND_VTABLE_V1_BASE_SIZE offsetof(pce_backend_vtable, qap_h)

typedef const pce_backend_vtable *(*pce_backend_entry_fn)(
    uint32_t host_abi_version, uint32_t *plugin_abi_version);

/* The one exported symbol. */
const pce_backend_vtable *pce_backend_entry(uint32_t host_abi_version,
                                            uint32_t *plugin_abi_version);

#ifdef __cplusplus
}
#endif

#endif /* PCE_BACKEND_H */
