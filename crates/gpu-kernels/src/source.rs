//! The kernel source, assembled from `kernels/` in dependency order.
//!
//! Templates (`field.h`, `curve.h`, `msm.h`) are instantiated by placing
//! them after the file of defines naming the instance; `#line` directives
//! keep compiler messages pointing at the right file and line.

/// The files, in the order they are concatenated.
const PARTS: [(&str, &str); 16] = [
    ("dialect.h", include_str!("../../../kernels/dialect.h")),
    ("fr.h", include_str!("../../../kernels/fr.h")),
    ("field.h", include_str!("../../../kernels/field.h")),
    ("field_end.h", include_str!("../../../kernels/field_end.h")),
    ("fp.h", include_str!("../../../kernels/fp.h")),
    ("field.h", include_str!("../../../kernels/field.h")),
    ("field_end.h", include_str!("../../../kernels/field_end.h")),
    ("fp2.h", include_str!("../../../kernels/fp2.h")),
    ("scalar.h", include_str!("../../../kernels/scalar.h")),
    ("g1.h", include_str!("../../../kernels/g1.h")),
    ("curve.h", include_str!("../../../kernels/curve.h")),
    ("msm.h", include_str!("../../../kernels/msm.h")),
    ("g2.h", include_str!("../../../kernels/g2.h")),
    ("curve.h", include_str!("../../../kernels/curve.h")),
    ("msm.h", include_str!("../../../kernels/msm.h")),
    ("ntt.h", include_str!("../../../kernels/ntt.h")),
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

/// BLAKE3 of [`source`] in hex: the key of compiled-program caches.
pub fn source_hash() -> String {
    blake3::hash(source().as_bytes()).to_hex().to_string()
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
}
