//! The witness of a PoSt partition circuit, without the linear
//! combinations of neptune's Poseidon gadget.
//!
//! Why: a WindowPoSt or WinningPoSt circuit is almost only Poseidon: per
//! sector `comm_r = H(comm_c, comm_r_last)`, then one TreeR inclusion path
//! per challenge (a 32 GiB WindowPoSt partition: 2349 sectors of 10 paths
//! of 10 hashes each). neptune's gadget builds the linear combinations of
//! its constraints even in a [`pce_core::WitnessCS`], which ignores them,
//! and they cost more than ten times the hashes' values
//! ([`pce_core::poseidon_witness`]).
//!
//! So the partition circuit is synthesized here by a copy of
//! storage-proofs-post 19.1.0's `FallbackPoStCircuit` (`fallback/circuit.rs`:
//! `Sector::synthesize`, and `synthesize_extendable`'s sectors in parallel
//! groups, each into its own system, appended in order), built from the
//! vanilla proof as `FallbackPoStCompound::circuit` builds it
//! (`fallback/compound.rs`: partition `k`'s public sectors, the last one
//! repeated for vanilla proofs beyond them). Its Poseidon hashes and
//! inclusion paths come from [`crate::por_witness`], allocating in the same
//! order exactly the values the gadgets allocate, so the witness is the
//! real circuit's value for value (`tests/post_witness.rs`) and fits the
//! PCE recorded from storage-proofs' blank circuit. A new version of
//! storage-proofs must be checked against this file before it is used.
//!
//! The circuit here computes values only: it enforces nothing (constraints
//! come from the PCE), so it is not a circuit to record or to check
//! constraints with.

use bellpepper_core::num::AllocatedNum;
use bellpepper_core::{Circuit, ConstraintSystem, SynthesisError};
use blstrs::Scalar as Fr;
use ff::Field;
use filecoin_hashers::Hasher;
use pce_core::{synthesize_witness, Witness};
use rayon::prelude::*;
use storage_proofs_core::merkle::MerkleTreeTrait;
use storage_proofs_post::fallback::{self, PublicInputs, PublicParams};

use crate::compound::Statement;
use crate::por_witness::{self, Path};
use crate::post::PoStScheme;
use crate::C2Error;

/// The vanilla proof of one PoSt partition over `Tree`.
type Vanilla<Tree> = fallback::Proof<<Tree as MerkleTreeTrait>::Proof>;

/// The witness of the `i`-th partition `statement` proves: exactly what
/// `pce_core::synthesize_witness(statement.circuit(i)?)` returns, computed
/// without the Poseidon gadget. A tree whose hasher is not Poseidon (none
/// that Filecoin registers) is synthesized with storage-proofs' circuit.
pub fn witness<Tree: 'static + MerkleTreeTrait>(
    statement: &Statement<PoStScheme<Tree>>,
    i: usize,
) -> Result<Witness, C2Error> {
    let synthesized = if por_witness::hashes_with_poseidon::<Tree>() {
        let (k, vanilla) = &statement.partitions[i];
        let circuit =
            PartitionCircuit::new::<Tree>(&statement.inputs, vanilla, &statement.params, *k)?;
        synthesize_witness(circuit)
    } else {
        synthesize_witness(statement.circuit(i)?)
    };
    synthesized.map_err(|source| C2Error::Synthesis {
        partition: i,
        source,
    })
}

/// One sector of the circuit (storage-proofs' `Sector`), its values.
struct SectorValues {
    comm_r: Fr,
    comm_c: Fr,
    comm_r_last: Fr,
    /// The challenged leaves, and their paths in TreeR.
    challenges: Vec<(Fr, Path)>,
}

/// The partition circuit: its sectors.
struct PartitionCircuit {
    sectors: Vec<SectorValues>,
}

impl PartitionCircuit {
    /// As `FallbackPoStCompound::circuit` and `Sector::circuit` build it.
    fn new<Tree: 'static + MerkleTreeTrait>(
        inputs: &PublicInputs<<Tree::Hasher as Hasher>::Domain>,
        vanilla: &Vanilla<Tree>,
        params: &PublicParams,
        k: usize,
    ) -> Result<Self, C2Error> {
        let per_partition = params.sector_count;
        if vanilla.sectors.len() != per_partition {
            return Err(C2Error::filecoin("building a PoSt partition circuit")(
                anyhow::anyhow!(
                    "vanilla proofs must equal sector_count: {per_partition} != {}",
                    vanilla.sectors.len()
                ),
            ));
        }
        let public = inputs.sectors.chunks(per_partition).nth(k).ok_or_else(|| {
            C2Error::filecoin("building a PoSt partition circuit")(anyhow::anyhow!(
                "invalid number of sectors/partition index"
            ))
        })?;
        let sectors = vanilla
            .sectors
            .iter()
            .enumerate()
            .map(|(i, proof)| {
                // Repeats the last sector where the partition has fewer.
                let public = &public[i.min(public.len() - 1)];
                SectorValues {
                    comm_r: public.comm_r.into(),
                    comm_c: proof.comm_c.into(),
                    comm_r_last: proof.comm_r_last.into(),
                    challenges: proof
                        .leafs()
                        .into_iter()
                        .map(Into::into)
                        .zip(proof.as_options())
                        .collect(),
                }
            })
            .collect();
        Ok(Self { sectors })
    }
}

impl Circuit<Fr> for PartitionCircuit {
    /// `FallbackPoStCircuit::synthesize`: in a system that can be extended,
    /// the sectors in groups in parallel, each group into a new system
    /// (with its own ONE), appended in order.
    fn synthesize<CS: ConstraintSystem<Fr>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        if !CS::is_extensible() {
            return self
                .sectors
                .iter()
                .try_for_each(|sector| sector.synthesize(cs));
        }
        let group = (self.sectors.len() / rayon::current_num_threads()).max(1);
        let groups = self
            .sectors
            .par_chunks(group)
            .map(|sectors| {
                let mut cs = CS::new();
                cs.alloc_input(|| "temp ONE", || Ok(Fr::ONE))?;
                for sector in sectors {
                    sector.synthesize(&mut cs)?;
                }
                Ok(cs)
            })
            .collect::<Result<Vec<CS>, SynthesisError>>()?;
        for group in &groups {
            cs.extend(group);
        }
        Ok(())
    }
}

impl SectorValues {
    /// `Sector::synthesize`: the commitments, `comm_r` public, the hash of
    /// `comm_c` and `comm_r_last` (only constrained equal to `comm_r`), then
    /// each challenge's leaf and its private PoR circuit under
    /// `comm_r_last`.
    fn synthesize<CS: ConstraintSystem<Fr>>(&self, cs: &mut CS) -> Result<(), SynthesisError> {
        let comm_r_last = AllocatedNum::alloc(&mut *cs, || Ok(self.comm_r_last))?;
        let comm_c = AllocatedNum::alloc(&mut *cs, || Ok(self.comm_c))?;
        let comm_r = AllocatedNum::alloc(&mut *cs, || Ok(self.comm_r))?;
        comm_r.inputize(&mut *cs)?;
        por_witness::poseidon_nodes(cs, &[comm_c, comm_r_last])?;
        for (leaf, path) in &self.challenges {
            let leaf = AllocatedNum::alloc(&mut *cs, || Ok(*leaf))?;
            por_witness::inclusion(cs, path, &leaf, por_witness::poseidon_nodes)?;
        }
        Ok(())
    }
}
