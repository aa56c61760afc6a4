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
//! `Sector::synthesize`; its sectors' values laid out as both its
//! `synthesize_extendable` and its `synthesize_default` lay them out, each
//! sector synthesized in parallel straight into its place), built from the
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
    let synthesis = |source| C2Error::Synthesis {
        partition: i,
        source,
    };
    if !por_witness::hashes_with_poseidon::<Tree>() {
        return synthesize_witness(statement.circuit(i)?).map_err(synthesis);
    }
    let (k, vanilla) = &statement.partitions[i];
    let sectors = sector_values::<Tree>(&statement.inputs, vanilla, &statement.params, *k)?;
    partition_witness(&sectors, i)
}

/// The partition's witness: ONE and every sector's inputs (its `comm_r`
/// and each challenge's packed path), then every sector's aux values, in
/// the sectors' order. That is what
/// `FallbackPoStCircuit` gives both in a system that can be extended (its
/// sectors synthesized in parallel groups, each into its own system with a
/// temporary ONE, appended in order) and in one that cannot (the sectors in
/// turn), since a sector allocates nothing but its own values.
///
/// Each sector is synthesized on its own and written straight into its
/// place in the partition's vector, whose length is known from the first
/// sector (every sector of a partition has the same tree, hence the same
/// number of values): the partition's values are held once, not once in
/// the groups and again where they are appended (a 32 GiB WindowPoSt
/// partition has 127M of them, 4 GB), as the memory model counts them.
fn partition_witness(sectors: &[SectorValues], partition: usize) -> Result<Witness, C2Error> {
    let synthesize = |sector: &SectorValues| {
        synthesize_witness(OneSector(sector))
            .map_err(|source| C2Error::Synthesis { partition, source })
    };
    let Some(first) = sectors.first() else {
        return Ok(Witness {
            inputs: vec![Fr::ONE],
            aux: Vec::new(),
        });
    };
    let per_sector = synthesize(first)?.aux.len();
    let mut aux = large_buffers::with_capacity::<Fr>(per_sector * sectors.len());
    let inputs = aux
        .spare_capacity_mut()
        .par_chunks_mut(per_sector.max(1))
        .zip(sectors.par_iter())
        .enumerate()
        .map(|(j, (place, sector))| {
            let Witness { inputs, aux: values } = synthesize(sector)?;
            if values.len() != place.len() {
                return Err(C2Error::WitnessLayout {
                    partition,
                    what: format!(
                        "sector {j} of the partition has {} aux values, the first {}: its paths are not the partition's tree's",
                        values.len(),
                        place.len()
                    ),
                });
            }
            for (slot, value) in place.iter_mut().zip(values) {
                slot.write(value);
            }
            // The sector's own inputs, without its ONE.
            Ok(inputs.into_iter().skip(1))
        })
        .collect::<Result<Vec<_>, C2Error>>()?;
    // SAFETY: the spare capacity holds `per_sector * sectors.len()`
    // elements, split into one chunk per sector (`par_chunks_mut` of
    // `per_sector`, zipped with as many sectors); the loop above returned
    // only after writing every element of every chunk (each chunk's length
    // checked equal to its sector's values before they are written; an
    // error returns before this line, leaving the vector empty).
    unsafe { aux.set_len(per_sector * sectors.len()) };
    let inputs = std::iter::once(Fr::ONE).chain(inputs.into_iter().flatten());
    Ok(Witness {
        inputs: inputs.collect(),
        aux,
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

/// The sectors of partition `k`, as `FallbackPoStCompound::circuit` and
/// `Sector::circuit` build them.
fn sector_values<Tree: 'static + MerkleTreeTrait>(
    inputs: &PublicInputs<<Tree::Hasher as Hasher>::Domain>,
    vanilla: &Vanilla<Tree>,
    params: &PublicParams,
    k: usize,
) -> Result<Vec<SectorValues>, C2Error> {
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
    Ok(sectors)
}

/// One sector as a circuit of its own, for [`partition_witness`].
struct OneSector<'a>(&'a SectorValues);

impl Circuit<Fr> for OneSector<'_> {
    fn synthesize<CS: ConstraintSystem<Fr>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        self.0.synthesize(cs)
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
