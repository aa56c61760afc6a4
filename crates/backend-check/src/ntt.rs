//! NTT cases against bellperson's `EvaluationDomain`.

use backend_api::interop::scalars_as_fr_mut;
use backend_api::{BackendError, Device, NttDirection};
use bellperson::domain::EvaluationDomain;
use blstrs::Scalar;
use ec_gpu_gen::threadpool::Worker;
use ff::Field;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// The four transforms of the ABI.
const KINDS: [(&str, NttDirection, bool); 4] = [
    ("forward", NttDirection::Forward, false),
    ("inverse", NttDirection::Inverse, false),
    ("coset-forward", NttDirection::Forward, true),
    ("coset-inverse", NttDirection::Inverse, true),
];

fn reference(input: &[Scalar], direction: NttDirection, coset: bool) -> Vec<Scalar> {
    let worker = Worker::new();
    let mut domain = EvaluationDomain::from_coeffs(input.to_vec()).expect("power-of-two size");
    let result = match (direction, coset) {
        (NttDirection::Forward, false) => domain.fft(&worker, &mut None),
        (NttDirection::Inverse, false) => domain.ifft(&worker, &mut None),
        (NttDirection::Forward, true) => domain.coset_fft(&worker, &mut None),
        (NttDirection::Inverse, true) => domain.icoset_fft(&worker, &mut None),
    };
    result.expect("the CPU FFT does not fail");
    domain.into_coeffs()
}

/// Checks every size and kind, calling `record` per case.
pub fn check(
    device: &Device,
    max_log: u32,
    record: &mut dyn FnMut(String, Result<bool, BackendError>),
) {
    let mut rng = ChaCha8Rng::seed_from_u64(0x004e_5454);
    for log in 1..=max_log {
        let n = 1usize << log;
        let domain = match device.ntt_domain(log) {
            Ok(domain) => domain,
            Err(e) => {
                record(format!("NTT domain 2^{log}"), Err(e));
                continue;
            }
        };
        let batch = if log <= 12 || log == max_log { 3 } else { 1 };
        let inputs: Vec<Scalar> = (0..n * batch).map(|_| Scalar::random(&mut rng)).collect();
        for (name, direction, coset) in KINDS {
            let mut data = inputs.clone();
            let outcome = device
                .ntt(&domain, direction, coset, scalars_as_fr_mut(&mut data))
                .map(|()| {
                    data.chunks(n)
                        .zip(inputs.chunks(n))
                        .all(|(got, input)| got == reference(input, direction, coset))
                });
            record(format!("NTT {name} 2^{log} x{batch}"), outcome);
        }
    }
}
