//! The GPU NTT (kernels/ntt.h) from the host: twiddle tables, the factors
//! of the scaling passes (following the ABI's definition of the domain:
//! root of unity, coset generator g = 7, 1/n in the inverse), and the
//! sequence of launches, one upload and one download per vector.

use backend_api::ffi::{pce_fr, PCE_ERR_OUT_OF_MEMORY, PCE_ERR_UNSUPPORTED};
use backend_api::interop::{
    fr_as_scalars, fr_as_scalars_mut, root_of_unity, scalars_as_fr, scalars_as_fr_mut,
};
use backend_api::plugin::PluginError;
use blstrs::Scalar;
use ff::{Field, PrimeField};
use rayon::prelude::*;

use tracing::warn;

use crate::engine::{bytes_of, AllocationWatch, Arg, Engine};

/// Elements per thread of `ntt_scale`.
const SCALE_CHUNK: usize = crate::NTT_SCALE_CHUNK as usize;

/// Largest transform: thread indices are 32-bit.
const MAX_LOG_SIZE: u32 = 31;

/// Twiddles computed by one task: each chunk starts from its own power of
/// the root, so the 2^26 products of a 2^27 domain spread over the cores.
const TWIDDLE_CHUNK: usize = 1 << 14;

/// `w^i` for `i < n/2`, `w` the domain's root of unity (its inverse for an
/// inverse transform), in the kernels' layout; `PCE_ERR_OUT_OF_MEMORY`
/// where the host cannot hold the table (a 2^31 domain's is 32 GiB).
pub fn twiddles(log_n: u32, inverse: bool) -> Result<Vec<pce_fr>, PluginError> {
    let mut root = root_of_unity(log_n);
    if inverse {
        root = root.invert().expect("a root of unity is invertible");
    }
    let half = (1usize << log_n) / 2;
    // Filled in place: a table of 2^26 elements is 2 GiB of host memory.
    let mut table = Vec::new();
    table.try_reserve_exact(half).map_err(|_| {
        PluginError::new(
            PCE_ERR_OUT_OF_MEMORY,
            format!(
                "the twiddles of an NTT of 2^{log_n} elements need {} bytes of host memory",
                half * size_of::<pce_fr>()
            ),
        )
    })?;
    table.resize(half, pce_fr::default());
    fr_as_scalars_mut(&mut table)
        .par_chunks_mut(TWIDDLE_CHUNK)
        .enumerate()
        .for_each(|(chunk, powers)| {
            let mut power = root.pow_vartime([(chunk * TWIDDLE_CHUNK) as u64]);
            for slot in powers {
                *slot = power;
                power *= root;
            }
        });
    Ok(table)
}

/// `1 / (1 − γ)`, `γ = g^n`: the factor of the last step of the QAP
/// reduction on the domain of size `n = 2^log_n` (groth16-prover's qap.rs
/// derives it).
pub fn qap_scale(log_n: u32) -> pce_fr {
    let gamma = Scalar::MULTIPLICATIVE_GENERATOR.pow_vartime([1u64 << log_n]);
    let scale = (Scalar::ONE - gamma)
        .invert()
        .expect("g^n ≠ 1: g lies outside the domain");
    scalars_as_fr(&[scale])[0]
}

/// One pass of `ntt_scale`: element `i` is multiplied by `scale · step^i`.
#[derive(Debug, Clone, Copy)]
pub struct Scaling {
    /// The factor of element 0.
    pub scale: pce_fr,
    /// The ratio between consecutive factors.
    pub step: pce_fr,
}

fn scaling(scale: Scalar, step: Scalar) -> Scaling {
    let [scale, step] = [scale, step].map(|value| scalars_as_fr(&[value])[0]);
    Scaling { scale, step }
}

/// The pass before the butterflies: the coset shift `g^i` of a forward
/// coset transform.
pub fn before(inverse: bool, coset: bool) -> Option<Scaling> {
    (coset && !inverse).then(|| scaling(Scalar::ONE, Scalar::MULTIPLICATIVE_GENERATOR))
}

/// The pass after the butterflies: `1/n` of an inverse transform, times
/// `g^-i` for an inverse coset transform.
pub fn after(log_n: u32, inverse: bool, coset: bool) -> Option<Scaling> {
    inverse.then(|| {
        let n_inv = Scalar::from(1u64 << log_n)
            .invert()
            .expect("n is invertible");
        let step = if coset {
            Scalar::MULTIPLICATIVE_GENERATOR
                .invert()
                .expect("the generator is invertible")
        } else {
            Scalar::ONE
        };
        scaling(n_inv, step)
    })
}

/// A prepared size: both twiddle tables resident on the device.
pub struct Domain<B> {
    log_n: u32,
    forward: B,
    inverse: B,
}

impl<B> Domain<B> {
    /// Uploads the twiddles of size `2^log_n`.
    pub fn new<E: Engine<Buffer = B>>(engine: &E, log_n: u32) -> Result<Self, PluginError> {
        Self::with_uploads(engine.limits().max_alloc, log_n, |table| {
            engine.upload(table)
        })
    }

    /// Computes the twiddles of size `2^log_n` on the host and hands each
    /// table to `upload` (which may take the device only for the copy:
    /// the tables of 2^27 take seconds to compute, during which the
    /// device's other users need not wait), on a device whose largest
    /// buffer is `max_alloc` bytes.
    pub fn with_uploads(
        max_alloc: u64,
        log_n: u32,
        mut upload: impl FnMut(&[pce_fr]) -> Result<B, PluginError>,
    ) -> Result<Self, PluginError> {
        if log_n > MAX_LOG_SIZE {
            return Err(PluginError::new(
                PCE_ERR_UNSUPPORTED,
                format!("GPU transforms have at most 2^{MAX_LOG_SIZE} elements, not 2^{log_n}"),
            ));
        }
        let bytes = (1u64 << log_n) * size_of::<pce_fr>() as u64;
        if bytes > max_alloc {
            return Err(PluginError::new(
                PCE_ERR_UNSUPPORTED,
                format!(
                    "an NTT of 2^{log_n} elements needs a buffer of {bytes} bytes; this device allows {max_alloc}"
                ),
            ));
        }
        // One table on the host at a time.
        let forward = upload(&twiddles(log_n, false)?)?;
        let inverse = upload(&twiddles(log_n, true)?)?;
        Ok(Self {
            log_n,
            forward,
            inverse,
        })
    }

    /// Elements per vector.
    pub fn size(&self) -> usize {
        1 << self.log_n
    }

    /// Transforms each vector of `data` in place.
    pub fn transform<E: Engine<Buffer = B>>(
        &self,
        engine: &E,
        inverse: bool,
        coset: bool,
        data: &mut [pce_fr],
    ) -> Result<(), PluginError> {
        let mut buffer = engine.buffer(self.size() * size_of::<pce_fr>())?;
        for vector in data.chunks_exact_mut(self.size()) {
            engine.write(&mut buffer, bytes_of(vector))?;
            self.transform_on_device(engine, &buffer, inverse, coset)?;
            engine.download(&buffer, vector)?;
        }
        Ok(())
    }

    /// The QAP step (`qap_h` in the ABI header) for the evaluations a, b, c
    /// of a satisfied R1CS, with the host's six transforms (derived in
    /// groth16-prover's qap.rs): A, B, C interpolated; A and B evaluated on
    /// the coset and multiplied; the product interpolated from the coset
    /// (`L + γ·U`); `h = (C − (L + γ·U)) / (1 − γ)`. a, b, c stay on the
    /// device throughout: three uploads and one download. Where the device
    /// refuses a buffer for the three vectors, the same six transforms run
    /// one vector at a time through one buffer ([`Self::qap_h_narrow`]);
    /// any other error, out-of-memory ones included, is returned
    /// ([`AllocationWatch`]).
    pub fn qap_h<E: Engine<Buffer = B>>(
        &self,
        engine: &E,
        abc: &mut [pce_fr],
    ) -> Result<(), PluginError> {
        let watch = AllocationWatch::new(engine);
        match self.qap_h_on_device(&watch, abc) {
            Err(error) if watch.refused(&error) => {
                warn!(log_n = self.log_n, %error.message, "QAP step out of device memory; one vector at a time");
                self.qap_h_narrow(engine, abc)
            }
            result => result,
        }
    }

    /// [`Self::qap_h`] with a, b and c on the device.
    fn qap_h_on_device<E: Engine<Buffer = B>>(
        &self,
        engine: &E,
        abc: &mut [pce_fr],
    ) -> Result<(), PluginError> {
        let n = self.size();
        let mut buffers = Vec::with_capacity(3);
        for vector in abc.chunks_exact(n) {
            let buffer = engine.upload(vector)?;
            self.transform_on_device(engine, &buffer, true, false)?;
            buffers.push(buffer);
        }
        let [a, b, c] = &buffers[..] else {
            unreachable!("abc holds three vectors")
        };
        self.transform_on_device(engine, a, false, true)?;
        self.transform_on_device(engine, b, false, true)?;
        engine.launch(
            "qap_mul",
            n,
            None,
            &[Arg::Buffer(a), Arg::Buffer(b), Arg::U32(n as u32)],
        )?;
        self.transform_on_device(engine, a, true, true)?;
        engine.launch(
            "qap_combine",
            n,
            None,
            &[
                Arg::Buffer(a),
                Arg::Buffer(c),
                Arg::U32(n as u32),
                Arg::Fr(qap_scale(self.log_n)),
            ],
        )?;
        engine.download(a, &mut abc[..n])
    }

    /// [`Self::qap_h`] in one device buffer of the domain's size: each
    /// transform uploads and downloads its vector, and the pointwise steps
    /// run on the host. A failed device attempt has changed nothing in
    /// `abc`: it downloads its result last.
    fn qap_h_narrow<E: Engine<Buffer = B>>(
        &self,
        engine: &E,
        abc: &mut [pce_fr],
    ) -> Result<(), PluginError> {
        let n = self.size();
        self.transform(engine, true, false, abc)?;
        self.transform(engine, false, true, &mut abc[..2 * n])?;
        let scalars = fr_as_scalars_mut(abc);
        let (a, bc) = scalars.split_at_mut(n);
        let (b, c) = bc.split_at_mut(n);
        a.par_iter_mut()
            .zip(b.par_iter())
            .for_each(|(a, b)| *a *= b);
        self.transform(engine, true, true, scalars_as_fr_mut(a))?;
        let [scale] = fr_as_scalars(&[qap_scale(self.log_n)])[..] else {
            unreachable!("one element")
        };
        a.par_iter_mut()
            .zip(c.par_iter())
            .for_each(|(a, c)| *a = (*c - *a) * scale);
        Ok(())
    }

    /// One transform of the vector in `buffer`.
    fn transform_on_device<E: Engine<Buffer = B>>(
        &self,
        engine: &E,
        buffer: &B,
        inverse: bool,
        coset: bool,
    ) -> Result<(), PluginError> {
        if let Some(scaling) = before(inverse, coset) {
            self.scale(engine, buffer, scaling)?;
        }
        let table = if inverse {
            &self.inverse
        } else {
            &self.forward
        };
        self.butterflies(engine, buffer, table)?;
        if let Some(scaling) = after(self.log_n, inverse, coset) {
            self.scale(engine, buffer, scaling)?;
        }
        Ok(())
    }

    fn butterflies<E: Engine<Buffer = B>>(
        &self,
        engine: &E,
        data: &B,
        table: &B,
    ) -> Result<(), PluginError> {
        let n = self.size();
        let log_n = self.log_n;
        engine.launch(
            "ntt_bit_reverse",
            n,
            None,
            &[Arg::Buffer(data), Arg::U32(log_n)],
        )?;
        let log_block = log_n.min(engine.limits().ntt_local_log);
        engine.launch(
            "ntt_local_stages",
            n / 2,
            Some(1 << (log_block - 1)),
            &[
                Arg::Buffer(data),
                Arg::Buffer(table),
                Arg::U32(log_n),
                Arg::U32(log_block),
            ],
        )?;
        for stage in log_block..log_n {
            engine.launch(
                "ntt_global_stage",
                n / 2,
                None,
                &[
                    Arg::Buffer(data),
                    Arg::Buffer(table),
                    Arg::U32(log_n),
                    Arg::U32(stage),
                ],
            )?;
        }
        Ok(())
    }

    fn scale<E: Engine<Buffer = B>>(
        &self,
        engine: &E,
        data: &B,
        scaling: Scaling,
    ) -> Result<(), PluginError> {
        let n = self.size();
        engine.launch(
            "ntt_scale",
            n.div_ceil(SCALE_CHUNK),
            None,
            &[
                Arg::Buffer(data),
                Arg::U32(n as u32),
                Arg::Fr(scaling.scale),
                Arg::Fr(scaling.step),
            ],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Limits;
    use std::cell::RefCell;

    /// An engine that records the kernels launched and runs none of them.
    #[derive(Default)]
    struct Launches {
        launched: RefCell<Vec<String>>,
        /// Buffers asked for.
        buffers: std::cell::Cell<usize>,
        /// The buffer (counted from 0) refused as out of memory.
        refuse: Option<usize>,
        /// A kernel that fails with `PCE_ERR_OUT_OF_MEMORY` (a fault an
        /// OpenCL driver reports as `CL_OUT_OF_RESOURCES`).
        fault: Option<&'static str>,
    }

    impl Engine for Launches {
        type Buffer = Vec<u8>;

        fn limits(&self) -> Limits {
            Limits {
                parallel_threads: 64,
                g1_bucket_threads: 64,
                g2_bucket_threads: 64,
                max_alloc: 1 << 30,
                memory: 1 << 30,
                ntt_local_log: 4,
            }
        }

        fn buffer(&self, bytes: usize) -> Result<Vec<u8>, PluginError> {
            let index = self.buffers.get();
            self.buffers.set(index + 1);
            if self.refuse == Some(index) {
                return Err(PluginError::new(
                    backend_api::ffi::PCE_ERR_OUT_OF_MEMORY,
                    "mock device memory full",
                ));
            }
            Ok(vec![0; bytes])
        }

        fn write(&self, buffer: &mut Vec<u8>, bytes: &[u8]) -> Result<(), PluginError> {
            buffer[..bytes.len()].copy_from_slice(bytes);
            Ok(())
        }

        fn read(&self, buffer: &Vec<u8>, bytes: &mut [u8]) -> Result<(), PluginError> {
            bytes.copy_from_slice(&buffer[..bytes.len()]);
            Ok(())
        }

        fn launch(
            &self,
            name: &str,
            _threads: usize,
            _block: Option<usize>,
            _args: &[Arg<'_, Vec<u8>>],
        ) -> Result<(), PluginError> {
            self.launched.borrow_mut().push(name.to_owned());
            if self.fault == Some(name) {
                return Err(PluginError::new(
                    backend_api::ffi::PCE_ERR_OUT_OF_MEMORY,
                    format!("mock {name} out of resources"),
                ));
            }
            Ok(())
        }
    }

    #[test]
    fn qap_h_runs_the_hosts_six_transforms() {
        let engine = Launches::default();
        let domain = Domain::new(&engine, 6).unwrap();
        let mut abc = vec![pce_fr::default(); 3 * domain.size()];
        domain.qap_h(&engine, &mut abc).unwrap();
        let launches = engine.launched.borrow();
        let count = |name: &str| launches.iter().filter(|l| *l == name).count();
        // One bit reversal per transform: three inverse, two coset
        // forward, one inverse coset.
        assert_eq!(count("ntt_bit_reverse"), 6, "{launches:?}");
        // 1/n after each inverse (four), g^i before each coset forward
        // (two); the inverse coset's 1/n and g^-i are one pass.
        assert_eq!(count("ntt_scale"), 6, "{launches:?}");
        assert_eq!(count("qap_mul"), 1);
        assert_eq!(count("qap_combine"), 1);
    }

    #[test]
    fn qap_h_goes_one_vector_at_a_time_when_a_buffer_is_refused() {
        // The twiddles and two vectors fit, the third is refused: the six
        // transforms run again through one buffer, the pointwise steps on
        // the host.
        let engine = Launches {
            refuse: Some(4),
            ..Launches::default()
        };
        let domain = Domain::new(&engine, 6).unwrap();
        let mut abc = vec![pce_fr::default(); 3 * domain.size()];
        domain.qap_h(&engine, &mut abc).unwrap();
        let launches = engine.launched.borrow();
        let count = |name: &str| launches.iter().filter(|l| *l == name).count();
        // Two transforms before the refusal, six after.
        assert_eq!(count("ntt_bit_reverse"), 2 + 6, "{launches:?}");
        assert_eq!(count("qap_mul") + count("qap_combine"), 0);
    }

    #[test]
    fn qap_h_fails_on_other_out_of_memory_errors() {
        // A kernel fault reported as out of resources: no buffer was
        // refused, so the QAP step fails instead of running again.
        let engine = Launches {
            fault: Some("qap_mul"),
            ..Launches::default()
        };
        let domain = Domain::new(&engine, 6).unwrap();
        let mut abc = vec![pce_fr::default(); 3 * domain.size()];
        let error = domain.qap_h(&engine, &mut abc).unwrap_err();
        assert_eq!(error.status, backend_api::ffi::PCE_ERR_OUT_OF_MEMORY);
        let launches = engine.launched.borrow();
        assert_eq!(launches.last().map(String::as_str), Some("qap_mul"));
        let transforms = launches.iter().filter(|l| *l == "ntt_bit_reverse");
        assert_eq!(transforms.count(), 5, "{launches:?}");
    }

    #[test]
    fn twiddles_are_the_powers_of_the_root_across_chunks() {
        // 2^16 twiddles: four chunks, each started from its own power.
        for (log_n, inverse) in [(1, false), (5, true), (17, false), (17, true)] {
            let mut root = root_of_unity(log_n);
            if inverse {
                root = root.invert().unwrap();
            }
            let mut expected = vec![Scalar::ONE];
            while expected.len() < 1 << (log_n - 1) {
                let next = *expected.last().unwrap() * root;
                expected.push(next);
            }
            let table = twiddles(log_n, inverse).unwrap();
            assert_eq!(
                bytes_of(&table),
                bytes_of(scalars_as_fr(&expected)),
                "2^{log_n}, inverse: {inverse}"
            );
        }
    }
}
