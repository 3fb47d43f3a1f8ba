//! The cursor and evidence key ring from a file (`--keys-file PATH`), so every replica can be
//! given the same ring. The file holds the entries of `COMPLETENESS_CURSOR_KEYS`
//! (`kid:base64key`), one per line or comma-separated; the first is the active key, the others
//! are still accepted. Blank lines and lines starting with `#` are ignored.

use std::path::Path;

use completeness::CursorKeys;

/// Reads the ring in `path`.
pub fn from_file(path: &Path) -> Result<CursorKeys, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("--keys-file {}: {e}", path.display()))?;
    let spec: Vec<&str> =
        text.lines().map(str::trim).filter(|line| !line.is_empty() && !line.starts_with('#')).collect();
    CursorKeys::parse(&spec.join(",")).map_err(|e| format!("--keys-file {}: {e}", path.display()))
}
