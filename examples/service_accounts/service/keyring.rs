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

/// What an operator is told when the ring in `path` can be read or changed by others than its
/// owner (group or world read or write bits): whoever reads it can sign cursors and evidence
/// tokens the service accepts, and whoever changes it can add a key of their own, accepted from
/// the next start. A warning, not a refusal: a secret mounted by an orchestrator is often
/// readable by the group on purpose. `None` when it is not (an execute bit alone gives nothing
/// away), or elsewhere than on Unix.
pub fn exposure(path: &Path) -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path).ok()?.permissions().mode() & 0o777;
        let signs = "whoever reads it can sign cursors and evidence the service accepts";
        let adds = "whoever changes it can add a key of their own, which the service accepts from its next start";
        let risk = match (mode & 0o044 != 0, mode & 0o022 != 0) {
            (false, false) => return None,
            (true, false) => format!("read by others than its owner (mode {mode:o}): {signs}"),
            (false, true) => format!("changed by others than its owner (mode {mode:o}): {adds}"),
            (true, true) => format!("read and changed by others than its owner (mode {mode:o}): {signs}, and {adds}"),
        };
        Some(format!("--keys-file {} can be {risk}; chmod 600 it", path.display()))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}
