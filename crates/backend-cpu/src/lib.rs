//! The reference backend plugin: NTT and MSM on the CPU.
//!
//! Loaded by the prover like any other backend, through the C ABI of
//! `backend-api` (it is a `cdylib`, never linked into the prover). One
//! device, the host; NTTs are parallel radix-2 transforms with a per-domain
//! twiddle table (`ntt`), and without IFMA the QAP step is one call
//! (`qap_h`, saving five of its six bit-reversal permutations); MSMs split
//! zeros and ones out and run a Pippenger (`msm`). Large MSMs keep their
//! buckets affine and add them in batches that share one inversion
//! (`batch_affine`, G1 and G2); small ones run blst's Pippenger. Where the
//! CPU has AVX-512 IFMA, the NTT and the batch additions (G1's and G2's)
//! run on eight field elements at a time (`ifma`); elsewhere the NTT is
//! scalar, and the batch additions run eight at a time on AVX-512F's FMA
//! units where the CPU has AVX-512 without IFMA (`fma`), else on blst's
//! field operations. Lent bases are used in place, so the SRS is never
//! copied.

use std::ffi::CStr;

use backend_api::export_backend;
use backend_api::ffi::{
    pce_fr, pce_scalar, PCE_ERR_INVALID_ARGUMENT, PCE_ERR_OUT_OF_MEMORY, PCE_ERR_UNSUPPORTED,
    PCE_G1, PCE_G2,
};
use backend_api::interop::{fr_as_scalars_mut, g1_as_blst, g1_from_blst, g2_as_blst, g2_from_blst};
use backend_api::plugin::{
    DeviceDescription, MemoryReport, MsmResults, Plugin, PluginError, Points, Storage,
};

mod batch_affine;

/// The base field's modulus p of BLS12-381, as blst's six little-endian
/// words: what the lane arithmetics are built on.
#[cfg(target_arch = "x86_64")]
const FP_MODULUS: [u64; 6] = [
    0xb9fe_ffff_ffff_aaab,
    0x1eab_fffe_b153_ffff,
    0x6730_d2a0_f6b0_f624,
    0x6477_4b84_f385_12bf,
    0x4b1b_a7b6_434b_acd7,
    0x1a01_11ea_397f_e69a,
];
#[cfg(target_arch = "x86_64")]
mod fma;
#[cfg(target_arch = "x86_64")]
mod ifma;
mod msm;
mod ntt;
mod repeated;
#[cfg(all(test, target_arch = "x86_64"))]
mod timing;

/// Largest NTT domain: 2^32 needs 64 GiB of twiddles before any data
/// (Filecoin's largest domain is 2^27), so it is refused as unsupported
/// rather than built.
const MAX_LOG_SIZE: u32 = 31;

/// The CPU backend.
pub struct CpuBackend;

/// The one device: this machine.
pub struct Host;

/// MSM bases of either group.
pub enum Bases {
    /// G1 points.
    G1(Storage<blst::blst_p1_affine>),
    /// G2 points.
    G2(Storage<blst::blst_p2_affine>),
}

/// Whether the NTT and the G1 MSM run on AVX-512 IFMA.
fn ifma_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    return ifma::available();
    #[cfg(not(target_arch = "x86_64"))]
    return false;
}

/// What the device's name says of the lanes the NTT and the MSMs run on:
/// IFMA's, the FMA units' (AVX-512 without IFMA: MSMs only), or none.
fn lanes_in_use() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    if !ifma_available() && fma::avx512f::available() && batch_affine::enabled() {
        return ", AVX-512F FMA lanes";
    }
    if ifma_available() {
        ", AVX-512 IFMA"
    } else {
        ""
    }
}

/// A `/proc/meminfo` value (`MemTotal`, `MemAvailable`) in bytes; 0 where
/// there is no such file.
fn meminfo(key: &str) -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|info| {
            let line = info.lines().find(|l| l.split(':').next() == Some(key))?;
            let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(kib * 1024)
        })
        .unwrap_or(0)
}

fn physical_memory() -> u64 {
    meminfo("MemTotal")
}

impl Plugin for CpuBackend {
    const NAME: &'static CStr = c"cpu";
    const DESCRIPTION: &'static CStr =
        c"pce-prover CPU backend: radix-2 NTT (AVX-512 IFMA where the CPU has it), fused QAP step without IFMA, batch-affine G1 and G2 MSMs (IFMA lanes, else FMA lanes on AVX-512F, else blst field operations), 0/1 split";
    type Device = Host;
    type Domain = ntt::Domain;
    type Bases = Bases;
    const QAP_H: bool = true;
    const DEVICE_MEMORY: bool = true;
    const NTT_SCRATCH_BYTES: bool = true;

    fn device_count() -> Result<u32, PluginError> {
        Ok(1)
    }

    fn device_info(index: u32) -> Result<DeviceDescription, PluginError> {
        if index != 0 {
            return Err(PluginError::invalid(format!(
                "device {index} does not exist (the CPU backend has device 0)"
            )));
        }
        let mut id = [0u8; 16];
        id[..3].copy_from_slice(b"cpu");
        Ok(DeviceDescription {
            name: format!(
                "CPU ({} threads{})",
                rayon::current_num_threads(),
                lanes_in_use()
            ),
            vendor: std::env::consts::ARCH.to_owned(),
            memory_bytes: physical_memory(),
            compute_units: rayon::current_num_threads() as u32,
            id,
        })
    }

    fn device_open(index: u32) -> Result<Host, PluginError> {
        Self::device_info(index).map(|_| Host)
    }

    fn ntt_domain(_: &Host, log_size: u32) -> Result<ntt::Domain, PluginError> {
        if log_size > MAX_LOG_SIZE {
            return Err(PluginError::new(
                PCE_ERR_UNSUPPORTED,
                format!("the CPU backend's transforms have at most 2^{MAX_LOG_SIZE} elements, not 2^{log_size}"),
            ));
        }
        // Refused early where the tables cannot fit (an allocation that
        // succeeds beyond the memory available is paged out or killed
        // later), and where the allocator refuses them.
        let tables = ntt::Domain::table_bytes(log_size);
        let available = meminfo("MemAvailable");
        let out_of_memory = |available: String| {
            PluginError::new(
                PCE_ERR_OUT_OF_MEMORY,
                format!(
                    "an NTT domain of 2^{log_size} needs {tables} bytes of tables; {available}"
                ),
            )
        };
        if available > 0 && tables > available {
            return Err(out_of_memory(format!(
                "{available} bytes of memory are available"
            )));
        }
        ntt::Domain::try_new(log_size)
            .map_err(|_| out_of_memory("the allocator refused them".to_owned()))
    }

    fn device_memory(_: &Host) -> Result<MemoryReport, PluginError> {
        Ok(MemoryReport {
            free: meminfo("MemAvailable"),
            total: physical_memory(),
        })
    }

    fn ntt_scratch_bytes(_: &Host, log_size: u32) -> Result<u64, PluginError> {
        Ok(ntt::Domain::scratch_bytes(log_size))
    }

    fn domain_size(domain: &ntt::Domain) -> usize {
        domain.size()
    }

    fn ntt(
        _: &Host,
        domain: &ntt::Domain,
        inverse: bool,
        coset: bool,
        data: &mut [pce_fr],
    ) -> Result<(), PluginError> {
        domain.transform(fr_as_scalars_mut(data), inverse, coset);
        Ok(())
    }

    fn qap_h(_: &Host, domain: &ntt::Domain, abc: &mut [pce_fr]) -> Result<(), PluginError> {
        if domain.qap_h(fr_as_scalars_mut(abc)) {
            Ok(())
        } else {
            Err(PluginError::new(
                PCE_ERR_UNSUPPORTED,
                "with AVX-512 IFMA the CPU backend composes the QAP step from its transforms",
            ))
        }
    }

    fn upload_bases(_: &Host, points: Points<'_>) -> Result<Bases, PluginError> {
        Ok(match points {
            // SAFETY: kept in the bases returned, nowhere else.
            Points::G1(points) => Bases::G1(unsafe { Storage::keep(points.cast(g1_as_blst))? }),
            // SAFETY: as above.
            Points::G2(points) => Bases::G2(unsafe { Storage::keep(points.cast(g2_as_blst))? }),
        })
    }

    fn bases_shape(bases: &Bases) -> (usize, u32) {
        match bases {
            Bases::G1(points) => (points.as_slice().len(), PCE_G1),
            Bases::G2(points) => (points.as_slice().len(), PCE_G2),
        }
    }

    fn msm(
        _: &Host,
        bases: &Bases,
        offset: usize,
        count: usize,
        scalars: &[pce_scalar],
        out: MsmResults<'_>,
    ) -> Result<(), PluginError> {
        match (bases, out) {
            (Bases::G1(points), MsmResults::G1(out)) => msm::batch::<msm::G1, _>(
                &points.as_slice()[offset..offset + count],
                scalars,
                out,
                g1_from_blst,
            ),
            (Bases::G2(points), MsmResults::G2(out)) => msm::batch::<msm::G2, _>(
                &points.as_slice()[offset..offset + count],
                scalars,
                out,
                g2_from_blst,
            ),
            _ => {
                return Err(PluginError::new(
                    PCE_ERR_INVALID_ARGUMENT,
                    "result group differs from the bases' group",
                ))
            }
        }
        Ok(())
    }
}

export_backend!(CpuBackend);
