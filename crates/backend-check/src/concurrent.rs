//! Calls from several threads at once on one device.
//!
//! The host makes them: a daemon's workers share a device
//! (`workers_per_device`), the fallback device serves every prover at
//! once, and `device_memory` is asked while an MSM runs. A plugin must
//! give each call its own right result while others run, whether it
//! serialises them or overlaps them; every other check here calls from one
//! thread, which a plugin whose calls share unguarded state still passes.

use backend_api::interop::scalars_as_fr_mut;
use backend_api::{BackendError, Device, NttDirection, G1};
use blstrs::Scalar;
use ff::Field;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::msm::{self, Scalars};
use crate::{ntt, Verdict};

/// Calls of each kind per thread.
const ROUNDS: usize = 4;
/// The transforms' and MSMs' size.
const LOG_SIZE: u32 = 10;

/// G1 MSMs, NTTs, and memory readings with domains made and dropped, each
/// on a thread of its own, all at once on `device`.
pub fn check(device: &Device, record: &mut dyn FnMut(String, Result<Verdict, BackendError>)) {
    let outcome = std::thread::scope(|scope| {
        let msms = scope.spawn(|| -> Result<bool, BackendError> {
            let mut rng = ChaCha8Rng::seed_from_u64(0x0063_6f6e);
            for _ in 0..ROUNDS {
                let (n, batch) = (1 << LOG_SIZE, 2);
                if !msm::case::<G1>(device, n, 0, batch, Scalars::Random, false, &mut rng)? {
                    return Ok(false);
                }
            }
            Ok(true)
        });
        let ntts = scope.spawn(|| -> Result<bool, BackendError> {
            let mut rng = ChaCha8Rng::seed_from_u64(0x0074_7466);
            let domain = device.ntt_domain(LOG_SIZE)?;
            for _ in 0..ROUNDS {
                let input: Vec<Scalar> = (0..1 << LOG_SIZE)
                    .map(|_| Scalar::random(&mut rng))
                    .collect();
                let mut data = input.clone();
                let forward = NttDirection::Forward;
                device.ntt(&domain, forward, false, scalars_as_fr_mut(&mut data))?;
                if data != ntt::reference(&input, forward, false) {
                    return Ok(false);
                }
            }
            Ok(true)
        });
        let others = scope.spawn(|| -> Result<bool, BackendError> {
            for _ in 0..4 * ROUNDS {
                device.memory()?;
                drop(device.ntt_domain(LOG_SIZE - 1)?);
            }
            Ok(true)
        });
        let mut all = Ok(true);
        for thread in [msms, ntts, others] {
            let outcome = thread.join().unwrap_or(Ok(false));
            all = match (all, outcome) {
                (Err(e), _) | (Ok(_), Err(e)) => Err(e),
                (Ok(a), Ok(b)) => Ok(a && b),
            };
        }
        all
    });
    record(
        format!(
            "concurrent calls: G1 MSMs and NTTs of 2^{LOG_SIZE}, memory readings and domains, \
             from three threads at once"
        ),
        outcome.map(Verdict::from),
    );
}
