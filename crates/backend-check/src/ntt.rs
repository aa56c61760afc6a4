//! NTT cases against bellperson's `EvaluationDomain`.

use backend_api::ffi::PCE_PROC_QAP_H;
use backend_api::interop::scalars_as_fr_mut;
use backend_api::{BackendError, Device, NttDirection};
use bellperson::domain::EvaluationDomain;
use blstrs::Scalar;
use ec_gpu_gen::threadpool::Worker;
use ff::Field;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::Verdict;

/// The four transforms of the ABI.
const KINDS: [(&str, NttDirection, bool); 4] = [
    ("forward", NttDirection::Forward, false),
    ("inverse", NttDirection::Inverse, false),
    ("coset-forward", NttDirection::Forward, true),
    ("coset-inverse", NttDirection::Inverse, true),
];

/// `input` transformed as bellperson's `EvaluationDomain` does it.
pub(crate) fn reference(input: &[Scalar], direction: NttDirection, coset: bool) -> Vec<Scalar> {
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

/// h from a, b, c as bellperson's prover computes it, with seven
/// transforms: interpolate, evaluate on the coset, `(a·b − c) / Z` there,
/// interpolate from the coset. An independent reference for the host's
/// six-transform algorithm, which agrees with it on satisfied inputs only.
pub fn reference_qap(abc: &[Scalar]) -> Vec<Scalar> {
    let worker = Worker::new();
    let n = abc.len() / 3;
    let mut domains = abc.chunks(n).map(|v| {
        let mut domain = EvaluationDomain::from_coeffs(v.to_vec()).expect("power-of-two size");
        domain
            .ifft(&worker, &mut None)
            .expect("the CPU FFT does not fail");
        domain
            .coset_fft(&worker, &mut None)
            .expect("the CPU FFT does not fail");
        domain
    });
    let (mut a, b, c) = (
        domains.next().expect("a"),
        domains.next().expect("b"),
        domains.next().expect("c"),
    );
    a.mul_assign(&worker, &b);
    a.sub_assign(&worker, &c);
    a.divide_by_z_on_coset(&worker);
    a.icoset_fft(&worker, &mut None)
        .expect("the CPU FFT does not fail");
    a.into_coeffs()
}

/// a ‖ b ‖ c of a satisfied R1CS of `m` constraints on a domain of `n`:
/// random a, b on the first `m` rows, `c = a·b` there, zero padded.
pub fn satisfied_abc(n: usize, m: usize, rng: &mut ChaCha8Rng) -> Vec<Scalar> {
    let mut abc = vec![Scalar::ZERO; 3 * n];
    for i in 0..m {
        let (a, b) = (Scalar::random(&mut *rng), Scalar::random(&mut *rng));
        abc[i] = a;
        abc[n + i] = b;
        abc[2 * n + i] = a * b;
    }
    abc
}

/// The backend's `qap_h` against [`reference_qap`] on the a, b, c of a
/// satisfied R1CS (the operation's contract); an absent row when the
/// plugin does not have it or declines it for this domain (the host then
/// composes it from the transforms checked above), a failed one when it
/// declines it with the data changed.
fn check_qap(
    device: &Device,
    domain: &backend_api::NttDomain<'_>,
    log: u32,
    rng: &mut ChaCha8Rng,
    record: &mut dyn FnMut(String, Result<Verdict, BackendError>),
) {
    let n = 1usize << log;
    // Every row used, and about half of them (zero padding).
    let m = if log % 2 == 1 { n } else { n / 2 + 1 };
    let case = format!("QAP h 2^{log}, {m} constraints");
    if !device.backend().has_operation(PCE_PROC_QAP_H) {
        record(case, Ok(Verdict::Absent));
        return;
    }
    let input = satisfied_abc(n, m, rng);
    let mut data = input.clone();
    let outcome = device
        .qap_h(domain, scalars_as_fr_mut(&mut data))
        .map(|done| match done {
            // Declined as unsupported for this domain: the host composes it
            // from the same buffer, which must be as it was given.
            false if data == input => Verdict::Absent,
            false => Verdict::Fail,
            true => Verdict::from(data[..n] == reference_qap(&input)[..]),
        });
    record(case, outcome);
}

/// Checks every size and kind, calling `record` per case.
pub fn check(
    device: &Device,
    max_log: u32,
    record: &mut dyn FnMut(String, Result<Verdict, BackendError>),
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
            record(
                format!("NTT {name} 2^{log} x{batch}"),
                outcome.map(Verdict::from),
            );
        }
        check_qap(device, &domain, log, &mut rng, record);
    }
}
