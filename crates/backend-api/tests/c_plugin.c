/* A minimal backend written in C against pce_backend.h: it has a device
 * that reports its memory (an operation found by name), refuses NTTs and
 * MSMs with a message, and reports the struct layouts its compiler sees so
 * the Rust mirror can be compared with the header. Built with
 * -DPCE_TEST_CLAIM_VERSION=1 it claims ABI version 1 instead, as a plugin
 * built against the old header would; with -DPCE_TEST_KEEP_ERRORS a success
 * leaves the last error message in place, against the ABI, for the test of
 * backend-check's edge cases. */
#include <stddef.h>
#include <string.h>

#include "pce_backend.h"

static char last_message[256];
static int the_device;

static pce_status fail(pce_status status, const char *message) {
  strncpy(last_message, message, sizeof last_message - 1);
  return status;
}

static size_t last_error(char *buf, size_t cap) {
  size_t n = strlen(last_message);
  if (buf && cap) {
    size_t m = n < cap - 1 ? n : cap - 1;
    memcpy(buf, last_message, m);
    buf[m] = 0;
  }
  return n;
}

static pce_status succeed(void) {
#ifndef PCE_TEST_KEEP_ERRORS
  last_message[0] = 0;
#endif
  return PCE_OK;
}

static pce_status device_count(uint32_t *count) {
  *count = 1;
  return succeed();
}

static pce_status device_info(uint32_t index, pce_device_info *info) {
  if (index != 0) return fail(PCE_ERR_INVALID_ARGUMENT, "no such device");
  strcpy(info->name, "C test device");
  strcpy(info->vendor, "C");
  info->memory_bytes = 1u << 20;
  info->compute_units = 1;
  memset(info->id, 0xab, sizeof info->id);
  return succeed();
}

static pce_status device_open(uint32_t index, pce_device **device) {
  if (index != 0) return fail(PCE_ERR_NO_DEVICE, "no such device");
  *device = (pce_device *)&the_device;
  return succeed();
}

static pce_status device_memory(pce_device *device, uint64_t *free, uint64_t *total) {
  (void)device;
  *free = 1u << 19;
  *total = 1u << 20;
  return succeed();
}

static void *get_proc_address(const char *name) {
  if (name && strcmp(name, PCE_PROC_DEVICE_MEMORY) == 0) {
    pce_device_memory_fn f = device_memory;
    void *address;
    memcpy(&address, &f, sizeof address);
    return address;
  }
  return NULL;
}

static void device_close(pce_device *device) { (void)device; }

static pce_status ntt_domain_create(pce_device *d, uint32_t log_size, pce_ntt_domain **domain) {
  (void)d; (void)log_size; (void)domain;
  return fail(PCE_ERR_UNSUPPORTED, "this C backend has no NTT");
}

static void ntt_domain_destroy(pce_ntt_domain *domain) { (void)domain; }

static pce_status ntt(pce_device *d, const pce_ntt_domain *domain, uint32_t direction, uint32_t flags,
                      pce_fr *data, uint32_t batch) {
  (void)d; (void)domain; (void)direction; (void)flags; (void)data; (void)batch;
  return fail(PCE_ERR_UNSUPPORTED, "this C backend has no NTT");
}

static pce_status msm_bases_upload(pce_device *d, uint32_t group, const void *points, uint64_t count,
                                   uint32_t flags, pce_msm_bases **bases) {
  (void)d; (void)group; (void)points; (void)count; (void)flags; (void)bases;
  return fail(PCE_ERR_UNSUPPORTED, "this C backend has no MSM");
}

static void msm_bases_release(pce_msm_bases *bases) { (void)bases; }

static pce_status msm(pce_device *d, const pce_msm_bases *bases, uint64_t offset, uint64_t count,
                      const pce_scalar *scalars, uint32_t batch, void *out) {
  (void)d; (void)bases; (void)offset; (void)count; (void)scalars; (void)batch; (void)out;
  return fail(PCE_ERR_UNSUPPORTED, "this C backend has no MSM");
}

#ifndef PCE_TEST_CLAIM_VERSION
#define PCE_TEST_CLAIM_VERSION PCE_BACKEND_ABI_VERSION
#endif

static const pce_backend_vtable VTABLE = {
    .abi_version = PCE_TEST_CLAIM_VERSION,
    .struct_size = sizeof(pce_backend_vtable),
    .name = "c-test",
    .description = "minimal backend written in C",
    .last_error = last_error,
    .get_proc_address = get_proc_address,
    /* No logger: the plugin logs nothing, and must work without one. */
    .set_logger = NULL,
    .device_count = device_count,
    .device_info = device_info,
    .device_open = device_open,
    .device_close = device_close,
    .ntt_domain_create = ntt_domain_create,
    .ntt_domain_destroy = ntt_domain_destroy,
    .ntt = ntt,
    .msm_bases_upload = msm_bases_upload,
    .msm_bases_release = msm_bases_release,
#ifdef PCE_TEST_NULL_MSM
    /* A vendor's mistake: a mandatory operation left out. */
    .msm = NULL,
#else
    .msm = msm,
#endif
};

const pce_backend_vtable *pce_backend_entry(uint32_t host_abi_version, uint32_t *plugin_abi_version) {
  if (plugin_abi_version) *plugin_abi_version = PCE_TEST_CLAIM_VERSION;
  return host_abi_version == PCE_TEST_CLAIM_VERSION ? &VTABLE : NULL;
}

/* Layouts as this compiler sees them, for the test. */
size_t pce_test_layout(size_t *out, size_t cap) {
  size_t values[] = {
      sizeof(pce_fr), sizeof(pce_scalar), sizeof(pce_g1_affine), sizeof(pce_g2_affine),
      sizeof(pce_g1_projective), sizeof(pce_g2_projective), sizeof(pce_device_info),
      offsetof(pce_device_info, name), sizeof(pce_backend_vtable),
      offsetof(pce_backend_vtable, last_error), offsetof(pce_backend_vtable, msm),
      offsetof(pce_backend_vtable, get_proc_address), offsetof(pce_backend_vtable, set_logger),
      PCE_BACKEND_VTABLE_V2_SIZE, PCE_G1_AFFINE_BYTES, PCE_G2_AFFINE_BYTES,
      PCE_G1_PROJECTIVE_BYTES, PCE_G2_PROJECTIVE_BYTES, PCE_FP_BYTES, PCE_FR_BYTES,
  };
  size_t n = sizeof values / sizeof values[0];
  for (size_t i = 0; i < n && i < cap; i++) out[i] = values[i];
  return n;
}
