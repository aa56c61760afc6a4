//! NTTs on the device: one upload per vector, the kernels of
//! kernels/ntt.h in sequence, one download.

use backend_api::ffi::pce_fr;
use backend_api::plugin::PluginError;
use gpu_kernels::ntt::{after, before, twiddles, Scaling};
use opencl3::memory::Buffer;

use crate::engine::{Arg, Engine};

/// `NTT_SCALE_CHUNK` of kernels/ntt.h.
const SCALE_CHUNK: usize = 64;

/// A prepared size: both twiddle tables resident on the device.
pub struct Domain {
    log_n: u32,
    forward: Buffer<u8>,
    inverse: Buffer<u8>,
}

impl Domain {
    /// Uploads the twiddles of size `2^log_n`.
    pub fn new(engine: &Engine, log_n: u32) -> Result<Self, PluginError> {
        if log_n > 31 {
            return Err(PluginError::new(
                backend_api::ffi::PCE_ERR_UNSUPPORTED,
                format!("the OpenCL backend transforms at most 2^31 elements, not 2^{log_n}"),
            ));
        }
        Ok(Self {
            log_n,
            forward: engine.upload(&twiddles(log_n, false))?,
            inverse: engine.upload(&twiddles(log_n, true))?,
        })
    }

    /// Elements per vector.
    pub fn size(&self) -> usize {
        1 << self.log_n
    }

    /// Transforms each vector of `data` in place.
    pub fn transform(
        &self,
        engine: &Engine,
        inverse: bool,
        coset: bool,
        data: &mut [pce_fr],
    ) -> Result<(), PluginError> {
        let n = self.size();
        let mut buffer = engine.buffer(n * size_of::<pce_fr>())?;
        let table = if inverse {
            &self.inverse
        } else {
            &self.forward
        };
        for vector in data.chunks_exact_mut(n) {
            engine.write(&mut buffer, vector)?;
            if let Some(scaling) = before(inverse, coset) {
                self.scale(engine, &buffer, scaling)?;
            }
            self.butterflies(engine, &buffer, table)?;
            if let Some(scaling) = after(self.log_n, inverse, coset) {
                self.scale(engine, &buffer, scaling)?;
            }
            engine.read(&buffer, vector)?;
        }
        Ok(())
    }

    fn butterflies(
        &self,
        engine: &Engine,
        data: &Buffer<u8>,
        table: &Buffer<u8>,
    ) -> Result<(), PluginError> {
        let n = self.size();
        let log_n = self.log_n;
        engine.launch(
            "ntt_bit_reverse",
            n,
            None,
            &[Arg::Buffer(data), Arg::U32(log_n)],
        )?;
        let log_block = log_n.min(engine.limits.ntt_local_log);
        let half_block = 1usize << (log_block - 1);
        engine.launch(
            "ntt_local_stages",
            n / 2,
            Some(half_block),
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

    fn scale(
        &self,
        engine: &Engine,
        data: &Buffer<u8>,
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
