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

/// What an operator is told when the ring in `path` can be read by others than its owner
/// (group or world permission bits): whoever reads it can sign cursors and evidence tokens the
/// service accepts. A warning, not a refusal: a secret mounted by an orchestrator is often
/// readable by the group on purpose. `None` when it is not, or elsewhere than on Unix.
pub fn exposure(path: &Path) -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path).ok()?.permissions().mode();
        (mode & 0o077 != 0).then(|| {
            format!(
                "--keys-file {} can be read by others than its owner (mode {:o}): whoever reads it can sign cursors and \
                 evidence the service accepts; chmod 600 it",
                path.display(),
                mode & 0o777
            )
        })
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}
