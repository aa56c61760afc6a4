//! `aggregate`: several sectors' PoRep proofs in one SnarkPack proof.
//!
//! Reads each sector's C1 output (for its commitments, one at a time: the
//! vanilla proofs are dropped as soon as they are read) and its proof in
//! any encoding `c2` writes, then hands them to
//! [`filecoin_prover::commit_aggregate`], which checks every proof,
//! aggregates and verifies the aggregate; the aggregate is written only
//! once it verified.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use base64::Engine;
use clap::Args;
use filecoin_prover::bounded_read::read_at_most;
use filecoin_prover::c1::C1Input;
use filecoin_prover::commit_aggregate::{aggregate_sectors, SectorToAggregate};
use serde_json::json;

use crate::c2_cmd::{parse_proof_type, ProverIdArgs};
use crate::output::{check_writable, encode_with, expand_inputs, proof_file, write_proof, Format};
use crate::progress::step;

/// The largest proof file read: a 64 GiB non-interactive sector's proofs
/// in JSON are tens of kilobytes; a sealed sector named by mistake is
/// refused by its length before it is read.
const MAX_PROOF_FILE_BYTES: u64 = 16 << 20;

/// Arguments of `aggregate`.
#[derive(Args)]
pub struct AggregateArgs {
    /// The sectors' commit-phase-1 outputs (any format `c2` reads). An
    /// interactive aggregate takes them in ascending sector number, as the
    /// chain verifies it (ProveCommitAggregate lists its sectors as a
    /// bitfield), whatever the order given; a non-interactive one, or one
    /// whose C1 outputs do not say their sector numbers, in the order
    /// given. A directory stands for its *.json files in name order.
    #[arg(long, value_name = "FILE|DIR", required = true, num_args = 1..)]
    c1: Vec<PathBuf>,
    /// The sectors' proofs, one per C1 output in the same order; or one
    /// directory holding IN.proof for each C1 output IN.json (what `c2
    /// --out-dir` writes). Any encoding `c2` writes (raw, hex, base64,
    /// json). A non-interactive sector's `c2` output is already an
    /// aggregate: give its `--format json` output, which carries the
    /// partition proofs too.
    #[arg(long, value_name = "FILE|DIR", required = true, num_args = 1..)]
    proof: Vec<PathBuf>,
    /// Where to write the aggregate (atomically, once it verified).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Output encoding (json adds "sectors", the number aggregated).
    #[arg(long, value_enum, default_value_t = Format::Raw)]
    format: Format,
    // The prover id: see the command's description.
    #[command(flatten)]
    prover: ProverIdArgs,
    /// Proof type, for filecoin-proofs JSON whose variant cannot be detected.
    #[arg(long, value_name = "NAME")]
    proof_type: Option<String>,
}

/// `pce-prover aggregate`.
pub fn aggregate(args: AggregateArgs) -> Result<ExitCode> {
    let proof_type = parse_proof_type(args.proof_type.as_deref())?;
    let prover_id = args.prover.prover_id()?;
    let c1_paths = expand_inputs(&args.c1)?;
    let proof_paths = pair_proofs(&c1_paths, &args.proof)?;
    let inputs: Vec<&Path> = c1_paths
        .iter()
        .chain(&proof_paths)
        .map(PathBuf::as_path)
        .collect();
    check_writable(&[args.out.as_path()], &inputs)?;

    let sectors = step(
        &format!("reading {} sector(s)", c1_paths.len()),
        || -> Result<Vec<SectorToAggregate>> {
            c1_paths
                .iter()
                .zip(&proof_paths)
                .map(|(c1, proof)| {
                    let sector = C1Input::read(c1, proof_type)?.sealed_sector()?;
                    let bytes = read_at_most(proof, MAX_PROOF_FILE_BYTES)
                        .map_err(|what| anyhow::anyhow!("{}: {what}", proof.display()))?;
                    Ok(SectorToAggregate {
                        sector,
                        proof_path: proof.clone(),
                        partition_proofs: decode_proof(proof, &bytes)?,
                    })
                })
                .collect()
        },
    )?;
    let sectors = in_chain_order(sectors)?;
    let proof_type = sectors[0].sector.proof_type.to_string();
    let aggregate = step(
        &format!(
            "checking, aggregating and verifying {} {proof_type} sector(s)",
            sectors.len()
        ),
        || aggregate_sectors(&sectors, prover_id),
    )?;
    let fields = json!({"proof_type": proof_type, "sectors": sectors.len()});
    let encoded = encode_with(args.format, &aggregate.proof, fields);
    write_proof(&args.out, &encoded)?;
    let inputs = match aggregate.chain_inputs {
        true => "the public inputs derived from the prover id and sector numbers, as the chain derives them",
        false => "the C1 outputs' public inputs (pass --prover-id/--miner-id to derive them as the chain does)",
    };
    eprintln!(
        "{} sector(s), {} partition proofs (padded to {}), each verified; aggregated into {} bytes \
         (SnarkPack v2), which verify_aggregate_seal_commit_proofs accepted with {inputs}",
        sectors.len(),
        aggregate.proofs,
        aggregate.padded_to,
        aggregate.proof.len()
    );
    eprintln!(
        "seconds: checking the proofs {:.2}, aggregating {:.2}, verifying the aggregate {:.2}",
        aggregate.check.as_secs_f64(),
        aggregate.aggregate.as_secs_f64(),
        aggregate.verify.as_secs_f64()
    );
    eprintln!("aggregate written to {}", args.out.display());
    Ok(ExitCode::SUCCESS)
}

/// The proof file of each C1 file: `proofs` in order, one per C1 file, or
/// `DIR/<stem>.proof` for each when `proofs` is one directory.
fn pair_proofs(c1_paths: &[PathBuf], proofs: &[PathBuf]) -> Result<Vec<PathBuf>> {
    if let [dir] = proofs {
        if dir.is_dir() {
            return c1_paths.iter().map(|c1| proof_file(dir, c1)).collect();
        }
    }
    if proofs.len() != c1_paths.len() {
        bail!(
            "{} C1 output(s) and {} proof(s): give one proof per C1 output, in the same order, \
             or the directory `c2 --out-dir` wrote them to",
            c1_paths.len(),
            proofs.len()
        );
    }
    Ok(proofs.to_vec())
}

/// A sector's partition proofs from a file `c2` wrote, in whichever
/// encoding: raw bytes, hex or base64 text, or `c2`'s JSON (its
/// `partition_proofs` when present: a non-interactive sector's). Raw
/// bytes are told from text by their content: a raw proof begins with a
/// compressed point, whose first byte has its top bit set, but a raw
/// non-interactive aggregate begins with a field element, whose first byte
/// is anything; kilobytes of random bytes are never valid UTF-8.
pub fn decode_proof(path: &Path, bytes: &[u8]) -> Result<Vec<u8>> {
    let text = match bytes.first() {
        None => bail!("{}: empty", path.display()),
        Some(&first) if first >= 0x80 => return Ok(bytes.to_vec()),
        Some(_) => match std::str::from_utf8(bytes) {
            Ok(text) => text.trim(),
            Err(_) => return Ok(bytes.to_vec()),
        },
    };
    if text.starts_with('{') {
        let doc: serde_json::Value = serde_json::from_str(text)
            .with_context(|| format!("{}: not valid JSON", path.display()))?;
        let encoded = ["partition_proofs", "proof"]
            .iter()
            .find_map(|key| doc.get(key).and_then(serde_json::Value::as_str))
            .with_context(|| format!("{}: no \"proof\" in this JSON", path.display()))?;
        return base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .with_context(|| format!("{}: its proof is not base64", path.display()));
    }
    if text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return hex::decode(text).with_context(|| format!("{}: odd hex", path.display()));
    }
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .with_context(|| format!("{}: neither raw, hex, base64 nor JSON", path.display()))
}

/// `sectors` in the order the chain verifies their aggregate: an
/// interactive aggregate in ascending sector number, since
/// ProveCommitAggregate lists its sectors as a bitfield (a directory's
/// `c1-10.json` comes before `c1-9.json`); otherwise, or where a C1 output
/// does not say its sector number, as given. A sector given twice (the
/// same sector number, or the same replica commitment where a C1 output
/// does not say its number) is an error: the chain would refuse the
/// aggregate.
fn in_chain_order(mut sectors: Vec<SectorToAggregate>) -> Result<Vec<SectorToAggregate>> {
    let mut by_comm_r: Vec<&SectorToAggregate> = sectors.iter().collect();
    by_comm_r.sort_by_key(|s| s.sector.comm_r);
    if let Some(pair) = by_comm_r
        .windows(2)
        .find(|pair| pair[0].sector.comm_r == pair[1].sector.comm_r)
    {
        bail!(
            "the sector of {} is given twice (the same comm_r in {}), with the proofs {} and {}",
            pair[0].sector.path.display(),
            pair[1].sector.path.display(),
            pair[0].proof_path.display(),
            pair[1].proof_path.display()
        );
    }
    let mut by_number: Vec<&SectorToAggregate> = sectors.iter().collect();
    by_number.sort_by_key(|s| s.sector.sector_num);
    if let Some(pair) = by_number.windows(2).find(|pair| {
        pair[0].sector.sector_num.is_some()
            && pair[0].sector.sector_num == pair[1].sector.sector_num
    }) {
        bail!(
            "sector {} is given twice, with the proofs {} and {}",
            pair[0].sector.sector_num.unwrap_or_default(),
            pair[0].proof_path.display(),
            pair[1].proof_path.display()
        );
    }
    let interactive = !sectors[0].sector.proof_type.is_non_interactive();
    let known = sectors.iter().all(|s| s.sector.sector_num.is_some());
    if !(interactive && known) {
        return Ok(sectors);
    }
    let given: Vec<Option<u64>> = sectors.iter().map(|s| s.sector.sector_num).collect();
    sectors.sort_by_key(|s| s.sector.sector_num);
    if sectors.iter().map(|s| s.sector.sector_num).ne(given) {
        eprintln!(
            "the sectors are aggregated in ascending sector number, the order in which the chain \
             verifies them (ProveCommitAggregate lists sectors as a bitfield)"
        );
    }
    Ok(sectors)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::encode_proof;

    #[test]
    fn every_encoding_c2_writes_decodes_to_the_proof() {
        let path = Path::new("s.proof");
        // A compressed point's first byte has its top bit set.
        let proof: Vec<u8> = (0..192u32).map(|i| (i * 7 + 0x80) as u8).collect();
        let partitions = [3u8; 192 * 2];
        for format in [Format::Raw, Format::Hex, Format::Base64, Format::Json] {
            let encoded = encode_proof(format, "StackedDrg2KiBV1_1", &proof, 1, None);
            assert_eq!(decode_proof(path, &encoded).unwrap(), proof, "{format:?}");
        }
        // A non-interactive sector's JSON: its partition proofs, not its aggregate.
        let encoded = encode_proof(Format::Json, "NI", &proof, 2, Some(&partitions));
        assert_eq!(decode_proof(path, &encoded).unwrap(), partitions);
        // A raw non-interactive aggregate begins with a field element:
        // here with a byte that is a digit, then bytes no text has.
        let aggregate: Vec<u8> = (0..4096u32).map(|i| (i * 37 + 0x31) as u8).collect();
        assert_eq!(decode_proof(path, &aggregate).unwrap(), aggregate);
        for (bytes, expected) in [
            (&b""[..], "s.proof: empty"),
            (b"{\"proof_type\": 1}", "no \"proof\""),
            (b"not a proof!", "neither raw, hex, base64 nor JSON"),
            (b"abc", "odd hex"),
        ] {
            let error = format!("{:#}", decode_proof(path, bytes).unwrap_err());
            assert!(error.contains(expected), "{expected:?} not in {error}");
        }
    }
}
