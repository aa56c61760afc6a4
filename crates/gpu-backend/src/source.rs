//! The kernel source, assembled from this crate's `kernels/` in dependency
//! order (embedded at build time, so the crate packages with them), and
//! the constants it is compiled with.
//!
//! Templates (`field.h`, `curve.h`, `msm.h`) are instantiated by placing
//! them after the file of defines naming the instance; `#line` directives
//! keep compiler messages pointing at the right file and line.
//!
//! Constants that both the kernels and their host-side drivers need are
//! defined here once and handed to the compiler as `-DNAME=VALUE`
//! ([`compiler_defines`]); the kernels refuse to compile without them.

/// Largest block of `ntt_local_stages` (log2 of its elements): 2^8
/// elements, 8 KiB of shared memory, 128 threads per work-group.
pub const NTT_MAX_LOCAL_LOG: u32 = 8;

/// Elements `ntt_scale` scales per thread (one power computed per chunk).
pub const NTT_SCALE_CHUNK: u32 = 64;

/// Most threads per block of any launch: CUDA kernels declare it as their
/// launch bound, which lets the compiler use up to 255 registers a thread.
pub const MAX_BLOCK_THREADS: u32 = 256;

/// The constants of the kernels, as (name, value).
pub const DEFINES: [(&str, u32); 3] = [
    ("NTT_MAX_LOCAL_LOG", NTT_MAX_LOCAL_LOG),
    ("NTT_SCALE_CHUNK", NTT_SCALE_CHUNK),
    ("MAX_BLOCK_THREADS", MAX_BLOCK_THREADS),
];

/// The compiler options defining `DEFINES` (`-DNAME=VALUE`), accepted
/// by `clBuildProgram` and NVRTC alike.
pub fn compiler_defines() -> Vec<String> {
    DEFINES
        .iter()
        .map(|(name, value)| format!("-D{name}={value}"))
        .collect()
}

/// The files, in the order they are concatenated.
const PARTS: [(&str, &str); 17] = [
    ("dialect.h", include_str!("../kernels/dialect.h")),
    ("fr.h", include_str!("../kernels/fr.h")),
    ("field.h", include_str!("../kernels/field.h")),
    ("field_end.h", include_str!("../kernels/field_end.h")),
    ("fp.h", include_str!("../kernels/fp.h")),
    ("field.h", include_str!("../kernels/field.h")),
    ("field_end.h", include_str!("../kernels/field_end.h")),
    ("fp2.h", include_str!("../kernels/fp2.h")),
    ("scalar.h", include_str!("../kernels/scalar.h")),
    ("sort.h", include_str!("../kernels/sort.h")),
    ("g1.h", include_str!("../kernels/g1.h")),
    ("curve.h", include_str!("../kernels/curve.h")),
    ("msm.h", include_str!("../kernels/msm.h")),
    ("g2.h", include_str!("../kernels/g2.h")),
    ("curve.h", include_str!("../kernels/curve.h")),
    ("msm.h", include_str!("../kernels/msm.h")),
    ("ntt.h", include_str!("../kernels/ntt.h")),
];

/// The complete kernel source, for `clBuildProgram` or NVRTC alike.
pub fn source() -> String {
    let mut text = String::new();
    for (name, body) in PARTS {
        text.push_str(&format!("#line 1 \"kernels/{name}\"\n"));
        text.push_str(body);
        text.push('\n');
    }
    text
}

/// BLAKE3 of [`source`] and [`compiler_defines`] in hex: the key of
/// compiled-program caches.
pub fn source_hash() -> String {
    let mut hasher = blake3::Hasher::new();
    hasher.update(source().as_bytes());
    for define in compiler_defines() {
        hasher.update(b"\n");
        hasher.update(define.as_bytes());
    }
    hasher.finalize().to_hex().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_template_is_closed() {
        let text = source();
        assert_eq!(text.matches("#define FIELD ").count(), 2);
        assert_eq!(text.matches("#undef FIELD\n").count(), 2);
        assert_eq!(text.matches("#define CURVE ").count(), 2);
        assert_eq!(text.matches("#undef CURVE\n").count(), 2);
    }

    #[test]
    fn the_kernels_take_their_constants_from_the_compiler() {
        let text = source();
        for (name, _) in DEFINES {
            assert!(
                !text.contains(&format!("#define {name} ")),
                "{name} is defined in the kernels as well as in Rust"
            );
            assert!(
                text.contains(&format!("#ifndef {name}")),
                "the kernels do not check that {name} is given"
            );
        }
    }
}
