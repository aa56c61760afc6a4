//! Groth16 proving from a pre-compiled circuit, on a backend device.
//!
//! Per batch of witnesses of one circuit: `a, b, c` by the PCE's MatVec,
//! `h` by the QAP reduction (backend NTTs), then five MSMs on the backend
//! against SRS bases uploaded once (lent, so a CPU backend copies nothing):
//!
//! | query | bases | scalars |
//! |---|---|---|
//! | H | `h` | the `n − 1` coefficients of h |
//! | L | `l` | all aux values |
//! | A | `a` | all inputs, then the aux values used in A |
//! | B (G1 and G2) | `b_g1`, `b_g2` | the inputs used in B, then the aux values used in B |
//!
//! and the proof is assembled with the blinding factors r and s exactly as
//! bellperson's prover does, so that with the same r and s the proofs are
//! byte-identical. Each proof is verified before it is returned, against
//! public inputs the caller derives from its own input (not read back from
//! the witness, which could carry the backend's or the circuit's error).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use backend_api::ffi::PCE_ERR_UNSUPPORTED;
use backend_api::ffi::{pce_g1_projective, pce_g2_projective, pce_scalar};
use backend_api::interop::{
    g1_affines_as_pce, g2_affines_as_pce, pce_g1_projectives, pce_g2_projectives, scalar_of,
};
use backend_api::plugin::split::Term;
use backend_api::{BackendError, Device, Group, MsmBases, NttDomain, G1, G2};
use bellperson::groth16::{
    prepare_verifying_key, verify_proof, PreparedVerifyingKey, Proof, VerifyingKey,
};
use blstrs::{Bls12, G1Projective, G2Projective, Scalar};
use group::Curve;
use pce_core::{PrecompiledCircuit, Witness};
use rayon::prelude::*;
use tracing::debug;

use crate::qap::{domain_log_size, h_coefficients};
use crate::srs::{G1Query, PointCheck, Srs, SrsError, SrsFile, SrsShape};

/// Bytes of a serialized proof (`Proof::write`): A and C as compressed G1
/// points (48 bytes each), B as a compressed G2 point (96 bytes).
pub const PROOF_BYTES: usize = 2 * 48 + 96;

/// Why a proof could not be produced.
#[derive(Debug, thiserror::Error)]
pub enum ProveError {
    /// A backend call failed.
    #[error(transparent)]
    Backend(#[from] BackendError),
    /// An MSM the device declines (unsupported) failed on the fallback
    /// device that serves it: not the device's fault, and the partition
    /// proven again on that fallback would fail the same way.
    #[error("the fallback device failed an MSM the device declines: {0}")]
    FallbackMsm(Box<BackendError>),
    /// A query could not be read from the parameter file.
    #[error(transparent)]
    Srs(#[from] SrsError),
    /// The PCE could not evaluate the witness.
    #[error(transparent)]
    Pce(#[from] pce_core::PceError),
    /// The SRS does not belong to this circuit.
    #[error("the parameters do not match the circuit: {0}")]
    ParametersMismatch(String),
    /// The number of r or s values differs from the number of witnesses.
    #[error("{witnesses} witnesses but {r} r values and {s} s values")]
    Randomness {
        /// Witnesses given.
        witnesses: usize,
        /// r values given.
        r: usize,
        /// s values given.
        s: usize,
    },
    /// The number of public-input vectors differs from the number of witnesses.
    #[error("{witnesses} witnesses but {public_inputs} public-input vectors")]
    PublicInputs {
        /// Witnesses given.
        witnesses: usize,
        /// Public-input vectors given.
        public_inputs: usize,
    },
    /// A proof does not verify against its public inputs: the backend
    /// computed something wrong, or the witness does not belong to them.
    #[error("proof {index} of the batch does not verify against its public inputs")]
    Invalid {
        /// Index in the batch.
        index: usize,
    },
    /// A proof does not verify, and its witness is to blame: it breaks a
    /// constraint of the circuit, so no backend could prove it.
    #[error(
        "proof {index} of the batch does not verify, and its witness breaks constraint \
         {constraint} of the pre-compiled circuit: the witness was computed wrongly, or the \
         PCE was recorded from another version of the circuit; no backend can prove it"
    )]
    Unsatisfied {
        /// Index in the batch.
        index: usize,
        /// The first constraint broken (a row of the PCE's matrices).
        constraint: usize,
    },
    /// A proof does not verify because its witness was computed for other
    /// public inputs than those it is verified against.
    #[error(
        "proof {index} of the batch does not verify: its witness was computed for other public \
         inputs than those it is checked against (input {input} differs)"
    )]
    OtherInputs {
        /// Index in the batch.
        index: usize,
        /// The first public input that differs (0: the first after ONE).
        input: usize,
    },
    /// The verifier itself failed (e.g. the wrong number of public inputs).
    #[error("verifying proof {index} of the batch")]
    Verifier {
        /// Index in the batch.
        index: usize,
        /// The verifier's error.
        #[source]
        source: bellperson::SynthesisError,
    },
}

/// Where a prover's MSM bases come from.
pub enum Bases<'a> {
    /// Every query decoded and lent to the device once: for many proofs.
    Resident(&'a Srs),
    /// Each query decoded from the file when its MSM runs (only the points
    /// with a non-zero scalar) and dropped right after: the least memory,
    /// for a single sector.
    Streamed(&'a SrsFile),
}

/// The queries as the prover holds them.
// One per prover: the size of the variants does not matter.
#[allow(clippy::large_enum_variant)]
enum Queries<'a> {
    /// Each query lent to the device once, or the device's refusal of it
    /// as unsupported (a backend without G2 MSMs may refuse G2 bases at
    /// once), kept for [`Prover::or_fallback`].
    Resident {
        h: Lent<'a, G1>,
        l: Lent<'a, G1>,
        a: Lent<'a, G1>,
        b_g1: Lent<'a, G1>,
        b_g2: Lent<'a, G2>,
        /// The points themselves, for a fallback device.
        srs: &'a Srs,
    },
    Streamed(&'a SrsFile),
}

/// Bases lent to the device, or why the device declined them.
type Lent<'a, G> = Result<MsmBases<'a, G>, BackendError>;

/// `lent`, where the device declined the bases as unsupported, kept as
/// that refusal for the MSMs over them; other errors are returned.
fn unless_unsupported<'a, G: Group>(lent: Lent<'a, G>) -> Result<Lent<'a, G>, BackendError> {
    match lent {
        Err(e) if e.status.0 != PCE_ERR_UNSUPPORTED => Err(e),
        lent => Ok(lent),
    }
}

/// Proves statements of one circuit with one SRS on one device. Threads
/// may share it: they take turns on the device for NTTs and MSMs and
/// overlap the rest.
pub struct Prover<'a> {
    device: &'a Device,
    vk: &'a VerifyingKey<Bls12>,
    shape: SrsShape,
    pvk: PreparedVerifyingKey<Bls12>,
    queries: Queries<'a>,
    domains: Mutex<HashMap<u32, Arc<NttDomain<'a>>>>,
    /// Held during the backend's NTTs and MSMs: proofs running on several
    /// threads take turns on the device (each of its operations already
    /// uses all of it) while their host-side work (PCE evaluation, scalar
    /// conversion, verification) overlaps.
    device_turn: Mutex<()>,
    /// Where an MSM goes that the device calls unsupported (a backend
    /// with G1 MSMs only): the CPU backend, given the points on loan.
    fallback: Option<&'a Device>,
}

/// The terms a batch of MSMs over streamed bases needs. A point whose
/// scalar is zero in every MSM of the batch adds nothing, so it is neither
/// decoded from the parameter file nor sent to the device: about 60 % of
/// the L, A and B terms of a PoRep witness. What counts as zero is the
/// plugins' split rule ([`Term`]); the ones stay for the plugin to split.
enum NonZeroTerms {
    /// Every point is needed (the H query): nothing is copied.
    All,
    /// `keep[i]` for each point; the scalars of the kept points, per MSM.
    Some {
        keep: Vec<bool>,
        scalars: Vec<pce_scalar>,
    },
}

impl NonZeroTerms {
    /// The terms of `batch` MSMs of `scalars.len() / batch` scalars each.
    fn of(scalars: &[pce_scalar], batch: usize) -> Self {
        let count = scalars.len() / batch;
        let mut keep: Vec<bool> = (0..count)
            .into_par_iter()
            .map(|i| (0..batch).any(|k| Term::of(&scalars[k * count + i]) != Term::Zero))
            .collect();
        let kept = keep.iter().filter(|&&k| k).count();
        if kept == count {
            return Self::All;
        }
        if kept == 0 {
            // One (zero) term, so that the MSM has a base at all.
            keep[0] = true;
        }
        let scalars = scalars
            .chunks_exact(count)
            .flat_map(|msm| msm.iter().zip(&keep).filter(|(_, &k)| k).map(|(s, _)| *s))
            .collect();
        Self::Some { keep, scalars }
    }

    /// Which points to decode (`None`: all of them).
    fn keep(&self) -> Option<&[bool]> {
        match self {
            Self::All => None,
            Self::Some { keep, .. } => Some(keep),
        }
    }

    /// The scalars of the kept points: `all` itself when every point is kept.
    fn scalars<'s>(&'s self, all: &'s [pce_scalar]) -> &'s [pce_scalar] {
        match self {
            Self::All => all,
            Self::Some { scalars, .. } => scalars,
        }
    }
}

/// Runs `step`, logging its wall time at debug level under `name`.
fn timed<T>(name: &str, step: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let result = step();
    debug!(elapsed = ?start.elapsed(), "{name}");
    result
}

impl<'a> Prover<'a> {
    /// A prover over `bases` on `device` (resident bases are lent to the
    /// device once, here).
    pub fn new(device: &'a Device, bases: Bases<'a>) -> Result<Self, ProveError> {
        let (vk, shape, queries) = match bases {
            Bases::Resident(srs) => (
                &srs.vk,
                srs.shape(),
                Queries::Resident {
                    h: unless_unsupported(device.lend_bases(g1_affines_as_pce(&srs.h)))?,
                    l: unless_unsupported(device.lend_bases(g1_affines_as_pce(&srs.l)))?,
                    a: unless_unsupported(device.lend_bases(g1_affines_as_pce(&srs.a)))?,
                    b_g1: unless_unsupported(device.lend_bases(g1_affines_as_pce(&srs.b_g1)))?,
                    b_g2: unless_unsupported(device.lend_bases(g2_affines_as_pce(&srs.b_g2)))?,
                    srs,
                },
            ),
            Bases::Streamed(file) => (&file.vk, file.shape(), Queries::Streamed(file)),
        };
        Ok(Self {
            device,
            vk,
            shape,
            pvk: prepare_verifying_key(vk),
            queries,
            domains: Mutex::new(HashMap::new()),
            device_turn: Mutex::new(()),
            fallback: None,
        })
    }

    /// Sends the MSMs the device calls unsupported (their bases at upload,
    /// or the MSM itself) to `device` instead (the CPU backend's), so that
    /// a backend without G2 MSMs, as many GPU libraries are, still proves
    /// with everything else on the GPU.
    pub fn with_fallback(mut self, device: &'a Device) -> Self {
        self.fallback = Some(device);
        self
    }

    /// `result` of an MSM on the device, or, when the device does not
    /// support it and there is a fallback device, the same MSM over
    /// `points` there.
    fn or_fallback<G: Group>(
        &self,
        result: Result<Vec<G::Projective>, BackendError>,
        points: &[G::Affine],
        batch: usize,
        scalars: &[pce_scalar],
    ) -> Result<Vec<G::Projective>, ProveError> {
        match (result, self.fallback) {
            (Err(e), Some(fallback)) if e.status.0 == PCE_ERR_UNSUPPORTED => {
                debug!(backend = %e.backend, "MSM unsupported by the device; on the fallback device");
                let bases = fallback
                    .lend_bases::<G>(points)
                    .map_err(|e| ProveError::FallbackMsm(Box::new(e)))?;
                fallback
                    .msm(&bases, 0, bases.len(), batch, scalars)
                    .map_err(|e| ProveError::FallbackMsm(Box::new(e)))
            }
            (result, _) => Ok(result?),
        }
    }

    /// `batch` MSMs over all of `bases` on the device, or the device's
    /// refusal of the bases.
    fn msm_over<G: Group>(
        &self,
        bases: &Lent<'_, G>,
        batch: usize,
        scalars: &[pce_scalar],
    ) -> Result<Vec<G::Projective>, BackendError> {
        let bases = bases.as_ref().map_err(Clone::clone)?;
        self.device.msm(bases, 0, bases.len(), batch, scalars)
    }

    /// `batch` MSMs over the whole G1 `query`.
    fn msm_g1(
        &self,
        query: G1Query,
        batch: usize,
        scalars: &[pce_scalar],
    ) -> Result<Vec<pce_g1_projective>, ProveError> {
        match &self.queries {
            Queries::Resident {
                h, l, a, b_g1, srs, ..
            } => {
                let (bases, points) = match query {
                    G1Query::H => (h, &srs.h),
                    G1Query::L => (l, &srs.l),
                    G1Query::A => (a, &srs.a),
                    G1Query::BG1 => (b_g1, &srs.b_g1),
                };
                let result = self.msm_over(bases, batch, scalars);
                self.or_fallback::<G1>(result, g1_affines_as_pce(points), batch, scalars)
            }
            Queries::Streamed(file) => {
                let terms = NonZeroTerms::of(scalars, batch);
                let points = timed(&format!("decoding {query:?}"), || {
                    file.g1(query, terms.keep(), PointCheck::FlagsOnly)
                })?;
                let points = g1_affines_as_pce(&points);
                let scalars = terms.scalars(scalars);
                let bases = self.device.lend_bases::<G1>(points);
                let result = self.msm_over(&bases, batch, scalars);
                self.or_fallback::<G1>(result, points, batch, scalars)
            }
        }
    }

    /// `batch` MSMs over the G2 query.
    fn msm_g2(
        &self,
        batch: usize,
        scalars: &[pce_scalar],
    ) -> Result<Vec<pce_g2_projective>, ProveError> {
        match &self.queries {
            Queries::Resident { b_g2, srs, .. } => {
                let result = self.msm_over(b_g2, batch, scalars);
                self.or_fallback::<G2>(result, g2_affines_as_pce(&srs.b_g2), batch, scalars)
            }
            Queries::Streamed(file) => {
                let terms = NonZeroTerms::of(scalars, batch);
                let points = timed("decoding B G2", || {
                    file.b_g2(terms.keep(), PointCheck::FlagsOnly)
                })?;
                let points = g2_affines_as_pce(&points);
                let scalars = terms.scalars(scalars);
                let bases = self.device.lend_bases::<G2>(points);
                let result = self.msm_over(&bases, batch, scalars);
                self.or_fallback::<G2>(result, points, batch, scalars)
            }
        }
    }

    /// The device it proves on.
    pub fn device(&self) -> &'a Device {
        self.device
    }

    /// Waits for this thread's turn on the device. A proof that panicked
    /// while holding it leaves nothing inconsistent (the lock guards no
    /// data), so the other proofs go on.
    fn device_turn(&self) -> MutexGuard<'_, ()> {
        self.device_turn
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn domain(&self, log_size: u32) -> Result<Arc<NttDomain<'a>>, BackendError> {
        let mut domains = self.domains.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(domain) = domains.get(&log_size) {
            return Ok(domain.clone());
        }
        let domain = Arc::new(self.device.ntt_domain(log_size)?);
        domains.insert(log_size, domain.clone());
        Ok(domain)
    }

    fn check_shape(&self, pce: &PrecompiledCircuit) -> Result<(), ProveError> {
        match self.shape.mismatch(&SrsShape::of_circuit(pce)) {
            Some(what) => Err(ProveError::ParametersMismatch(what)),
            None => Ok(()),
        }
    }

    /// Proves one witness with blinding factors `r` and `s`; the proof is
    /// verified against `public_inputs` (without the leading ONE).
    pub fn prove(
        &self,
        pce: &PrecompiledCircuit,
        witness: &Witness,
        public_inputs: &[Scalar],
        r: Scalar,
        s: Scalar,
    ) -> Result<Proof<Bls12>, ProveError> {
        Ok(self
            .prove_batch(
                pce,
                std::slice::from_ref(witness),
                &[public_inputs],
                &[r],
                &[s],
            )?
            .remove(0))
    }

    /// Proves several witnesses of the same circuit; `r_s[i]`, `s_s[i]`
    /// blind proof `i`, which is verified against `public_inputs[i]`.
    pub fn prove_batch(
        &self,
        pce: &PrecompiledCircuit,
        witnesses: &[Witness],
        public_inputs: &[&[Scalar]],
        r_s: &[Scalar],
        s_s: &[Scalar],
    ) -> Result<Vec<Proof<Bls12>>, ProveError> {
        if witnesses.len() != public_inputs.len() {
            return Err(ProveError::PublicInputs {
                witnesses: witnesses.len(),
                public_inputs: public_inputs.len(),
            });
        }
        if witnesses.len() != r_s.len() || witnesses.len() != s_s.len() {
            return Err(ProveError::Randomness {
                witnesses: witnesses.len(),
                r: r_s.len(),
                s: s_s.len(),
            });
        }
        if witnesses.is_empty() {
            // No proof to make: no MSM of zero batches for a device to refuse.
            return Ok(Vec::new());
        }
        let log_n = domain_log_size(pce.num_constraints());
        let n = 1usize << log_n;
        self.check_shape(pce)?;
        // A circuit of one row (ONE's input constraint alone) has a domain
        // of one element: h has no coefficient and the H query no point,
        // as in bellperson; backends' NTTs start at two elements.
        let domain = (log_n > 0).then(|| self.domain(log_n)).transpose()?;

        // Every vector of a proof below is gigabytes at 32 GiB, allocated
        // afresh: in huge pages, written by all threads (large_buffers).
        let batch = witnesses.len();
        let mut h_scalars = large_buffers::with_capacity(batch * (n - 1));
        for witness in witnesses {
            let mut abc = large_buffers::zeroed(3 * n);
            let m = pce.num_constraints();
            let (a, bc) = abc.split_at_mut(n);
            let (b, c) = bc.split_at_mut(n);
            timed("MatVec (a, b, c)", || {
                pce.evaluate_into(witness, &mut a[..m], &mut b[..m], &mut c[..m])
            })?;
            let Some(domain) = &domain else { continue };
            let h = {
                let _turn = self.device_turn();
                timed("QAP reduction", || {
                    h_coefficients(self.device, domain, &mut abc)
                })?
            };
            h_scalars.par_extend(h.par_iter().map(scalar_of));
        }
        debug!(n, batch = witnesses.len(), "h computed");

        let num_inputs = pce.num_inputs();
        let b_inputs = pce.b_input_density().count();
        let mut l_scalars = large_buffers::with_capacity(batch * pce.num_aux());
        let mut a_scalars =
            large_buffers::with_capacity(batch * (num_inputs + pce.a_aux_density().count()));
        let mut b_scalars =
            large_buffers::with_capacity(batch * (b_inputs + pce.b_aux_density().count()));
        timed("MSM scalars", || {
            for witness in witnesses {
                // L's scalars are the canonical aux values themselves; A's and
                // B's are selected from them, so the aux values are converted
                // once and never held twice (at 32 GiB a copy is 3.9 GiB).
                let start = l_scalars.len();
                l_scalars.par_extend(witness.aux.par_iter().map(scalar_of));
                let aux = &l_scalars[start..];
                let inputs: Vec<pce_scalar> = witness.inputs.iter().map(scalar_of).collect();
                // A's query has every input, B's the inputs B uses; then each
                // has the aux values its density selects.
                a_scalars.extend_from_slice(&inputs);
                pce.a_aux_density().extend_selected(aux, &mut a_scalars);
                pce.b_input_density()
                    .extend_selected(&inputs, &mut b_scalars);
                pce.b_aux_density().extend_selected(aux, &mut b_scalars);
            }
        });
        let turn = self.device_turn();
        let h = timed("H MSM", || self.msm_g1(G1Query::H, batch, &h_scalars))?;
        drop(h_scalars);
        let l = timed("L MSM", || self.msm_g1(G1Query::L, batch, &l_scalars))?;
        drop(l_scalars);
        let a = timed("A MSM", || self.msm_g1(G1Query::A, batch, &a_scalars))?;
        drop(a_scalars);
        let b_g1 = timed("B G1 MSM", || self.msm_g1(G1Query::BG1, batch, &b_scalars))?;
        let b_g2 = timed("B G2 MSM", || self.msm_g2(batch, &b_scalars))?;
        drop(turn);
        debug!("MSMs done");

        let vk = self.vk;
        let proofs: Vec<Proof<Bls12>> = (0..witnesses.len())
            .map(|i| {
                let (r, s) = (r_s[i], s_s[i]);
                let a_answer: G1Projective = pce_g1_projectives(&a)[i];
                let b1_answer: G1Projective = pce_g1_projectives(&b_g1)[i];
                let b2_answer: G2Projective = pce_g2_projectives(&b_g2)[i];
                let g_a = vk.delta_g1 * r + vk.alpha_g1 + a_answer;
                let g_b = vk.delta_g2 * s + vk.beta_g2 + b2_answer;
                let g_c = a_answer * s
                    + b1_answer * r
                    + vk.delta_g1 * (r * s)
                    + vk.alpha_g1 * s
                    + vk.beta_g1 * r
                    + pce_g1_projectives(&h)[i]
                    + pce_g1_projectives(&l)[i];
                Proof {
                    a: g_a.to_affine(),
                    b: g_b.to_affine(),
                    c: g_c.to_affine(),
                }
            })
            .collect();

        timed("verification", || {
            self.verify(&proofs, public_inputs, pce, witnesses)
        })?;
        Ok(proofs)
    }

    /// Checks each proof against its public inputs; a proof that fails is
    /// blamed on the parameter file, its witness or the backend, in that
    /// order (the error says which).
    fn verify(
        &self,
        proofs: &[Proof<Bls12>],
        public_inputs: &[&[Scalar]],
        pce: &PrecompiledCircuit,
        witnesses: &[Witness],
    ) -> Result<(), ProveError> {
        for (index, (proof, inputs)) in proofs.iter().zip(public_inputs).enumerate() {
            let valid = verify_proof(&self.pvk, proof, inputs)
                .map_err(|source| ProveError::Verifier { index, source })?;
            if !valid {
                // Streamed queries skip the curve check: a corrupt
                // parameter file is named here rather than blamed on the backend.
                if let Queries::Streamed(file) = &self.queries {
                    file.check_points()?;
                }
                return Err(blame_witness(pce, &witnesses[index], inputs, index)?
                    .unwrap_or(ProveError::Invalid { index }));
            }
        }
        Ok(())
    }
}

/// Why the proof of `witness` cannot verify whatever the backend computed,
/// if it cannot: it was made for other public inputs than `inputs`, or it
/// breaks a constraint ([`PrecompiledCircuit::first_unsatisfied`]).
fn blame_witness(
    pce: &PrecompiledCircuit,
    witness: &Witness,
    inputs: &[Scalar],
    index: usize,
) -> Result<Option<ProveError>, ProveError> {
    let own = witness.inputs.get(1..).unwrap_or_default();
    if let Some(input) = (0..own.len().max(inputs.len())).find(|&i| own.get(i) != inputs.get(i)) {
        return Ok(Some(ProveError::OtherInputs { index, input }));
    }
    let unsatisfied = timed("looking for a broken constraint", || {
        pce.first_unsatisfied(witness)
    })?;
    Ok(unsatisfied.map(|constraint| ProveError::Unsatisfied { index, constraint }))
}
