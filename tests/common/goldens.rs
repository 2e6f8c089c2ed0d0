//! Output pinned by golden files under tests/: compared, or written anew with `A2A_SIM_BLESS=1`.

use std::path::Path;

/// Whether this run writes the goldens (`A2A_SIM_BLESS` is set) instead of comparing them.
pub fn blessing() -> bool {
    std::env::var_os("A2A_SIM_BLESS").is_some()
}

/// Writes `actual` to the golden `file` when `bless`; otherwise compares them (line ends folded)
/// and gives the file's path when they differ or the golden is missing.
pub fn bless_or_compare(file: &Path, actual: &str, bless: bool) -> Option<String> {
    if bless {
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, actual).unwrap();
        return None;
    }
    let expected = std::fs::read_to_string(file)
        .unwrap_or_default()
        .replace("\r\n", "\n");
    (expected != actual).then(|| file.display().to_string())
}
