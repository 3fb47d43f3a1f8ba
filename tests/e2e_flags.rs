//! End to end: the command-line flags of the example's README parse as documented, and `--db PATH`
//! keeps the versioned inventory across restarts.

use crate::built_example;
use crate::e2e_support;

use std::time::Duration;

use e2e_support::service::StartError;
use e2e_support::{Config, Harness, config};
use serde_json::json;

fn parse(args: &[&str]) -> Result<Option<Config>, String> {
    Config::from_args(args.iter().map(|a| (*a).to_owned()))
}

#[test]
fn every_flag_of_the_design_parses_into_the_configuration() {
    let config = parse(&[
        "--addr",
        "127.0.0.1:4000",
        "--db",
        "inventory.sqlite",
        "--accounts",
        "250",
        "--cursor-ttl",
        "60",
        "--snapshot-retention=120",
        "--result-limit",
        "7",
        "--max-page-size",
        "40",
        "--fail-source",
        "legacy",
        "--slow-source",
        "audit=900",
        "--read-timeout",
        "5",
    ])
    .unwrap()
    .unwrap();
    assert_eq!(config.addr.to_string(), "127.0.0.1:4000");
    assert_eq!(config.db.as_deref(), Some(std::path::Path::new("inventory.sqlite")));
    assert_eq!(config.accounts, 250);
    assert_eq!(config.cursor_ttl, Duration::from_secs(60));
    assert_eq!(config.snapshot_retention, Duration::from_secs(120));
    assert_eq!(config.result_limit, 7);
    assert_eq!(config.max_page_size, 40);
    assert!(config.fails("legacy") && !config.fails("audit"));
    assert_eq!(config.delay_of("audit"), Duration::from_millis(900));
    assert_eq!(config.read_timeout, Duration::from_secs(5));
    assert!(!config.demo);
    let demo = parse(&["--demo", "--accounts", "50", "--fail-source", "audit", "--fail-source", "legacy"]);
    let demo = demo.unwrap().unwrap();
    assert!(demo.demo && demo.fails("audit") && demo.fails("legacy"), "a repeatable flag adds to its list");
    let defaults = parse(&[]).unwrap().unwrap();
    assert_eq!(
        (defaults.addr.to_string(), defaults.accounts, defaults.db),
        ("127.0.0.1:3000".to_owned(), 10_000, None)
    );
    assert!(parse(&["--help"]).unwrap().is_none());
}

#[test]
fn bad_flags_are_refused_with_a_reason() {
    for (args, says) in [
        (&["--page-size", "5"][..], "unknown flag"),
        (&["--accounts", "many"], "--accounts"),
        (&["--fail-source", "mainframe"], "--fail-source: unknown source 'mainframe'"),
        (&["--slow-source", "mainframe=5"], "--slow-source: unknown source 'mainframe'"),
        (&["--slow-source", "audit"], "NAME=MS"),
        (&["--result-limit", "0"], "at least 1"),
        (&["--read-timeout", "0"], "--read-timeout must be at least 1"),
        (&["--cursor-ttl", "0"], "--cursor-ttl must be at least 1"),
        // Without retention a first page read while another request writes would be expired.
        (&["--snapshot-retention", "0"], "--snapshot-retention must be at least 1"),
        (&["--read-timeout", "-1"], "--read-timeout: '-1' is not a non-negative number"),
        // Digits too many for any number: too large, not "no number".
        (
            &["--cursor-ttl", "99999999999999999999999"],
            "--cursor-ttl: 99999999999999999999999 is more than the largest accepted value, 31622400",
        ),
        (&["--accounts", "99999999999"], "--accounts: 99999999999 is more than the largest accepted value, 1000000"),
        (&["--addr"], "needs a value"),
        (&["--addr", "127.0.0.1:99999"], "--addr: '127.0.0.1:99999' is not an IP address and port"),
        (&["--addr", "localhost:3000"], "--addr: 'localhost:3000' is not an IP address and port"),
        // An empty `--db` (a script that printed nothing) never falls back to a throwaway database.
        (&["--db", ""], "no database named"),
        (&["--db", "sqlite:"], "no database named"),
        (&["--db", "mysql://inventory"], "unsupported scheme 'mysql://'"),
        // A PostgreSQL URL the driver would refuse on connecting is refused as a flag.
        (&["--db", "postgres://"], "names no host"),
        (&["--db", "postgres://user@db.example"], "names no database"),
        (&["--db", "postgresql://user@db.example/"], "names no database"),
        (&["--db", "postgres://user@db.example/inventory?connect_timeout=abc"], "`connect_timeout`"),
        (&["--db", "postgres://user@db.example/inventory?colour=blue"], "colour"),
        (&["--db", "postgres://user@[::1/inventory"], "--db: invalid connection string"),
        // `postgres:` without `//` is a typo, not a SQLite file of that name; a SQLite URI
        // (`mode=memory`) would not be the file the banner names.
        (&["--db", "postgres:inventory"], "'postgres:' without '//' is not a PostgreSQL URL"),
        (&["--db", "postgresql:/app:S3cretPW@db.example/inventory"], "'postgresql:' without '//'"),
        (&["--db", "file:inventory.db?mode=memory"], "is a SQLite URI"),
        (&["--db", "sqlite:file::memory:"], "is a SQLite URI"),
        // A PostgreSQL connection written as libpq's key=value string, or as a URL without its
        // scheme, is not a SQLite file named after it.
        (&["--db", "host=db.example port=5432 user=app password=S3cretPW dbname=inventory"], "(host=...)"),
        (&["--db", " dbname=inventory"], "libpq key=value connection string (dbname=...)"),
        (&["--db", "sslmode = disable"], "(sslmode=...)"),
        (&["--db", "app:S3cretPW@db.example:5432/inventory"], "is a URL without its scheme"),
        (&["--db", "postgres//app:S3cretPW@db.example/inventory"], "is a URL without its scheme"),
        // This build has no TLS: a URL that demands it could never connect.
        (&["--db", "postgres://app@db.example/inventory?sslmode=require"], "sslmode=require cannot work"),
        (&["--db", "postgres://app@db.example/inventory?sslmode=verify-full"], "sslmode=verify-full cannot work"),
        (&["--db", "postgres://app@db.example/inventory?sslmode=verify-ca"], "does not support TLS"),
        (&["--db", "postgres://app@db.example/inventory?channel_binding=require"], "channel_binding=require"),
        (&["--db", "postgres://app@db.example/inventory?sslmode=bogus"], "sslmode=bogus is not a valid sslmode"),
        // The service writes: a read-only session could never serve it.
        (
            &["--db", "postgres://app@db.example/inventory?target_session_attrs=read-only"],
            "target_session_attrs=read-only cannot work: this service writes",
        ),
        (
            &["--db", "postgres://app@db.example/inventory?options=-c%20default_transaction_read_only%3Don"],
            "the URL's options set default_transaction_read_only to 'on', which cannot work: this service writes",
        ),
        (
            &["--db", "postgres://app@db.example/inventory?options=--default-transaction-read-only%3DTrue"],
            "default_transaction_read_only to 'True', which cannot work",
        ),
        // A flag given twice is not read as its last value; a switch takes no value.
        (&["--addr", "127.0.0.1:1", "--addr=127.0.0.1:2"], "--addr is given twice; give it once"),
        (&["--db", "a.db", "--db", "b.db"], "--db is given twice"),
        (&["--demo=no"], "--demo takes no value"),
        (&["--slow-source", "audit=10", "--slow-source", "audit=500"], "--slow-source audit is given twice"),
        (&["--bogus", "--bogus"], "unknown flag '--bogus'"),
        (&["--help=no"], "--help takes no value"),
        // The tour archives: never on the operator's database, nor at an address it ignores.
        (&["--demo", "--db", "inventory.sqlite"], "--demo takes no --db"),
        (&["--addr", "127.0.0.1:4000", "--demo"], "--demo takes no --addr"),
        // The key ring is read with the flags, not when the service opens its database.
        (&["--keys-file", "/nonexistent/keys"], "--keys-file /nonexistent/keys: "),
    ] {
        let error = parse(args).unwrap_err();
        assert!(error.contains(says), "{args:?}: {error}");
        assert!(!error.contains("S3cretPW"), "{args:?}: the message repeats the password: {error}");
    }
}

/// The connection strings refused above are told apart from file names that merely hold a `=`,
/// a `:` or an `@`, and one given as `sqlite:PATH` is a SQLite file whatever it looks like.
/// `sslmode=prefer` (the driver's default, which connects without TLS when the driver has none)
/// and `disable` are kept.
#[test]
fn sqlite_paths_and_urls_without_tls_are_kept() {
    for db in ["runs/host=a.db", "myhost=a.db", "a=b.db", "backup@2024.db", "/srv/x:y/a@b.db", "sqlite:host=a.db"] {
        let config = parse(&["--db", db]).unwrap_or_else(|e| panic!("{db}: {e}")).unwrap();
        let location = config.location().unwrap();
        assert!(matches!(location, e2e_support::service::store::Location::SqliteFile(_)), "{db}: {location:?}");
    }
    for query in [
        "",
        "?sslmode=prefer",
        "?sslmode=disable",
        "?channel_binding=prefer&sslmode=disable",
        "?options=-c%20default_transaction_read_only%3Doff",
    ] {
        let db = format!("postgres://app@db.example/inventory{query}");
        parse(&["--db", &db]).unwrap_or_else(|e| panic!("{db}: {e}"));
    }
    // A URL's scheme is read in any case, and handed to the driver in lower case.
    for (db, url) in [
        ("POSTGRES://app@db.example/inventory", "postgres://app@db.example/inventory"),
        ("PostgreSQL://app@db.example/inventory", "postgresql://app@db.example/inventory"),
    ] {
        let config = parse(&["--db", db]).unwrap_or_else(|e| panic!("{db}: {e}")).unwrap();
        assert_eq!(config.location().unwrap(), e2e_support::service::store::Location::Postgres(url.to_owned()));
    }
}

/// The banner's store line names the PostgreSQL server without the password, wherever the URL
/// gives it: as `user:password@`, or in its query (`?password=...`, the name percent-encoded or
/// in another case, the password holding an `@` or a `&`), keeping the other settings.
#[test]
fn the_store_line_shows_no_password_of_a_postgres_url() {
    let cases = [
        ("postgres://app:S3cretPW@db.example:5432/inventory", "postgres://db.example:5432/inventory"),
        ("postgres://db.example/inventory?user=app&password=S3cretPW", "postgres://db.example/inventory?user=app"),
        ("postgres://db.example/inventory?password=S3cretPW", "postgres://db.example/inventory"),
        (
            "postgresql://db.example/inventory?password=S3cretPW&user=app&sslmode=disable",
            "postgresql://db.example/inventory?user=app&sslmode=disable",
        ),
        ("postgres://db.example/inventory?user=app&pass%77ord=S3cretPW", "postgres://db.example/inventory?user=app"),
        ("postgres://db.example/inventory?user=app&password=S3cretPW%26x", "postgres://db.example/inventory?user=app"),
    ];
    for (db, shown) in cases {
        let config = parse(&["--db", db]).unwrap_or_else(|e| panic!("{db}: {e}")).unwrap();
        let line = config.location().unwrap().to_string();
        assert!(!line.contains("S3cretPW"), "{db}: {line}");
        assert_eq!(line, format!("PostgreSQL at {shown}"), "{db}");
    }
    // A password holding an `@` is hidden too, though the driver may not read such a URL.
    let line = e2e_support::service::store::Location::Postgres(
        "postgres://db.example/inventory?user=app&password=S3c@retPW".to_owned(),
    )
    .to_string();
    assert!(!line.contains("S3c"), "{line}");
}

/// The same, from the running example's banner: a URL whose query gives the password connects
/// (the test server trusts any), and nothing the example writes shows it.
#[tokio::test]
async fn the_banner_of_a_url_with_a_password_in_its_query_does_not_show_it() {
    let db = e2e_support::postgres::fresh_database().await;
    let _release = e2e_support::postgres::Release::of(&db);
    let (_, after_scheme) = db.split_once("://").unwrap();
    let (user, server) = after_scheme.split_once('@').expect("a test URL with its user");
    let with_password = format!("postgres://{server}?user={user}&password=S3cretPW");
    let mut command = tokio::process::Command::new(built_example::binary("service_accounts"));
    command
        .args(["--db", &with_password, "--addr", "127.0.0.1:0", "--accounts", "5"])
        .env_remove(e2e_support::service::state::KEYS_VARIABLE)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true);
    let mut child = command.spawn().expect("the example starts");
    let mut stdout = tokio::io::BufReader::new(child.stdout.take().unwrap());
    let mut banner = String::new();
    while !banner.contains("(no credential needed)") {
        use tokio::io::AsyncBufReadExt;
        let read = tokio::time::timeout(Duration::from_secs(30), stdout.read_line(&mut banner)).await;
        assert!(read.is_ok_and(|read| read.is_ok_and(|bytes| bytes > 0)), "the banner ended early: {banner}");
    }
    child.start_kill().unwrap();
    let output = child.wait_with_output().await.unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(banner.contains(&format!("store: PostgreSQL at postgres://{server}?user={user}\n")), "{banner}");
    assert!(!banner.contains("S3cretPW") && !stderr.contains("S3cretPW"), "{banner}{stderr}");
}

/// A libpq key=value connection string exits 2 saying to write it as a URL, without repeating
/// its password, and creates no SQLite file of its name (as it once did, serving from it).
#[tokio::test]
async fn a_libpq_connection_string_exits_2_and_creates_nothing() {
    let dir = std::env::temp_dir().join(format!("service-accounts-libpq-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = "host=127.0.0.1 port=1 user=postgres password=S3cretPW dbname=inventory";
    let output = run_example(&["--db", db, "--addr", "127.0.0.1:0"], &[], Some(&dir)).await;
    let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert_eq!(output.status.code(), Some(2), "{stdout}{stderr}");
    assert!(stderr.starts_with("error: --db: a libpq key=value connection string (host=...)"), "{stderr}");
    assert!(stderr.contains("postgres://user:password@host:port/db"), "{stderr}");
    assert!(!stdout.contains("S3cretPW") && !stderr.contains("S3cretPW"), "{stdout}{stderr}");
    let created: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|entry| entry.unwrap().file_name()).collect();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(created.is_empty(), "{created:?}");
}

/// `sslmode=require` cannot work with this build, which has no TLS: it is a setting to fix (exit
/// 2, saying so), not a database that is down (exit 1). `sslmode=prefer` and `disable` connect.
#[tokio::test]
async fn a_url_that_demands_tls_exits_2_and_one_that_does_not_connects() {
    let db = e2e_support::postgres::fresh_database().await;
    let with = |query: &str| format!("{db}{}{query}", if db.contains('?') { '&' } else { '?' });
    let (code, stderr) = exit_of(&["--db", &with("sslmode=require"), "--addr", "127.0.0.1:0"], &[]).await;
    assert_eq!(code, Some(2), "{stderr}");
    let first = stderr.lines().next().unwrap_or_default();
    assert!(first.starts_with("error: --db: the URL's sslmode=require cannot work"), "{stderr}");
    assert!(first.contains("does not support TLS") && first.contains("give sslmode=disable or prefer"), "{stderr}");
    for query in ["sslmode=prefer", "sslmode=disable"] {
        let running = e2e_support::service::start(Config { db: Some(with(query).into()), ..config(5) }).await;
        running.unwrap_or_else(|e| panic!("{query}: {e}")).stop().await.unwrap();
    }
}

#[test]
fn a_keys_file_is_read_with_the_flags() {
    let dir = std::env::temp_dir().join(format!("service-accounts-flags-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (good, bad) = (dir.join("keys.txt"), dir.join("bad-keys.txt"));
    let secret = completeness::CursorKeys::generate_secret();
    std::fs::write(&good, format!("# the active key first\nk2:{secret}\n\nk1:{secret}\n")).unwrap();
    std::fs::write(&bad, "k1:short\n").unwrap();

    let config = parse(&["--keys-file", good.to_str().unwrap()]).unwrap().unwrap();
    let ids: Vec<&str> = config.cursor_keys.as_ref().expect("the ring, read").key_ids().collect();
    assert_eq!(ids, ["k2", "k1"]);
    let error = parse(&["--keys-file", bad.to_str().unwrap()]).unwrap_err();
    assert!(error.starts_with(&format!("--keys-file {}: ", bad.display())), "{error}");
    assert!(error.contains("the secret of key 'k1'"), "{error}");

    // Whoever reads the ring can sign what the service accepts: one readable by others is
    // named, one only its owner reads is not.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&good, std::fs::Permissions::from_mode(0o644)).unwrap();
        let exposure = |mode: u32| {
            std::fs::set_permissions(&good, std::fs::Permissions::from_mode(mode)).unwrap();
            e2e_support::service::keyring::exposure(&good)
        };
        let exposed = exposure(0o644).expect("a ring others can read is named");
        assert!(exposed.contains("read by others") && exposed.contains("(mode 644)"), "{exposed}");
        assert!(exposed.contains("chmod 600") && !exposed.contains("changed"), "{exposed}");
        // One others can change is named for what that allows: a key of their own.
        let exposed = exposure(0o620).expect("a ring others can change is named");
        assert!(exposed.contains("changed by others") && exposed.contains("a key of their own"), "{exposed}");
        assert!(!exposed.contains("read") && exposed.contains("(mode 620)"), "{exposed}");
        let exposed = exposure(0o666).expect("a ring anyone can read and change is named");
        assert!(exposed.contains("read and changed by others"), "{exposed}");
        // An execute bit gives nothing away.
        assert_eq!(exposure(0o711), None);
        assert_eq!(exposure(0o600), None);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs the built example with `args` and `env` (and no key ring from the test's own
/// environment); it must exit within 30 seconds. Returns its exit code and standard error.
async fn exit_of(args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String) {
    let output = run_example(args, env, None).await;
    (output.status.code(), String::from_utf8_lossy(&output.stderr).into_owned())
}

/// Runs the built example with `args` and `env` (and no key ring from the test's own
/// environment), in `dir` when given; it must exit within 30 seconds. Returns what it wrote.
async fn run_example(args: &[&str], env: &[(&str, &str)], dir: Option<&std::path::Path>) -> std::process::Output {
    let mut command = example_command(args, env);
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    let child = command.spawn().expect("the example starts");
    tokio::time::timeout(Duration::from_secs(30), child.wait_with_output())
        .await
        .unwrap_or_else(|_| panic!("the example did not exit within 30 s: {args:?}"))
        .unwrap()
}

/// The built example with `args` and `env` (and no key ring from the test's own environment),
/// its output piped, killed when dropped.
fn example_command(args: &[&str], env: &[(&str, &str)]) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(built_example::binary("service_accounts"));
    command
        .args(args)
        .env_remove(e2e_support::service::state::KEYS_VARIABLE)
        .envs(env.iter().copied())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true);
    command
}

/// Stops `process` with SIGTERM; what it wrote, once it exited (within 30 s).
async fn terminated(process: tokio::process::Child) -> std::process::Output {
    let pid = process.id().expect("a running process").to_string();
    assert!(std::process::Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
    tokio::time::timeout(Duration::from_secs(30), process.wait_with_output()).await.expect("it exits").unwrap()
}

/// An argument that is not UTF-8 is a flag error (exit 2) that says which one, not a panic;
/// so is a failed write of the usage (exit 1).
#[tokio::test]
async fn an_argument_that_is_not_utf8_is_refused_and_a_usage_that_cannot_be_written_fails() {
    use std::os::unix::ffi::OsStrExt;
    let binary = built_example::binary("service_accounts");
    let bytes = std::ffi::OsStr::from_bytes(b"/tmp/inventory-\xff.db");
    let output = tokio::process::Command::new(&binary).arg("--db").arg(bytes).env_remove("RUST_BACKTRACE").output();
    let output = tokio::time::timeout(Duration::from_secs(30), output).await.unwrap().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.starts_with("error: argument 2 (/tmp/inventory-\u{fffd}.db) is not valid UTF-8"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");

    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").expect("/dev/full");
    let mut help = tokio::process::Command::new(&binary);
    help.arg("--help").stdout(full).stderr(std::process::Stdio::piped());
    let output = help.spawn().expect("the example starts").wait_with_output();
    let output = tokio::time::timeout(Duration::from_secs(30), output).await.unwrap().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.starts_with("error: cannot write the usage"), "{stderr}");
}

/// A bad `--keys-file` or `COMPLETENESS_CURSOR_KEYS` is a flag error: exit 2, a one-line reason
/// and the usage, before the database is opened: an empty database stays empty, and a database
/// that is down is not what the operator is told about.
#[tokio::test]
async fn a_bad_key_ring_exits_2_before_the_database_is_touched() {
    let db = e2e_support::postgres::fresh_database().await;
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let down = format!("postgres://nobody@127.0.0.1:{port}/inventory");
    let missing = ["--keys-file", "/nonexistent/keys"];
    let cases = [
        ([&["--db", &db][..], &missing].concat(), None, "error: --keys-file /nonexistent/keys: "),
        ([&["--db", &down][..], &missing].concat(), None, "error: --keys-file /nonexistent/keys: "),
        (vec!["--db", &db], Some(("COMPLETENESS_CURSOR_KEYS", "k1:short")), "error: COMPLETENESS_CURSOR_KEYS: "),
        (vec!["--db", &down], Some(("COMPLETENESS_CURSOR_KEYS", "")), "error: COMPLETENESS_CURSOR_KEYS: "),
    ];
    for (args, env, says) in cases {
        let (code, stderr) = exit_of(&args, env.as_slice()).await;
        assert_eq!(code, Some(2), "{args:?} {env:?}: {stderr}");
        let first = stderr.lines().next().unwrap_or_default();
        assert!(first.starts_with(says), "{args:?} {env:?}: {stderr}");
        assert!(stderr.contains("\nusage: service_accounts"), "{args:?} {env:?}: {stderr}");
        assert!(!stderr.contains("could not open"), "{args:?} {env:?}: {stderr}");
    }

    assert_eq!(e2e_support::postgres::public_tables(&db).await, 0, "the database was neither created into nor seeded");
}

#[tokio::test]
async fn a_store_or_key_ring_that_cannot_be_opened_is_refused_with_its_cause() {
    let refused = |config: Config| async move {
        match e2e_support::service::build(config, tokio_util::sync::CancellationToken::new()).await {
            Ok(_) => panic!("the service started"),
            Err(error) => error,
        }
    };
    // A misconfiguration is not blamed on the database.
    let mut missing_keys = config(5);
    missing_keys.keys_file = Some("/nonexistent/keys".into());
    let error = refused(missing_keys).await;
    assert!(matches!(error, StartError::Config(_)), "{error:?}");
    let error = error.to_string();
    assert!(error.starts_with("--keys-file /nonexistent/keys: "), "{error}");
    // A PostgreSQL server that is not there: the cause, not only "error connecting to server".
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut nobody = config(5);
    nobody.db = Some(format!("postgres://nobody@127.0.0.1:{port}/inventory").into());
    let error = refused(nobody).await;
    assert!(matches!(error, StartError::Failed(_)), "an outage may pass: {error:?}");
    let error = error.to_string();
    // It names the server (the driver's error does not), without the URL's password.
    let said = format!("could not open PostgreSQL at postgres://127.0.0.1:{port}/inventory: ");
    assert!(error.starts_with(&said), "{error}");
    assert!(error.contains("Connection refused"), "{error}");
    // A SQLite path where no database can be is a setting to fix too (exit 2), not an outage.
    let dir = std::env::temp_dir().join(format!("service-accounts-not-a-db-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = dir.join("notes.txt");
    let notes = "not a database, but long enough that SQLite reads a header from it\n".repeat(20);
    std::fs::write(&text, &notes).unwrap();
    for (path, says) in [(dir.clone(), "unable to open database file"), (text.clone(), "file is not a database")] {
        let mut unusable = config(5);
        unusable.db = Some(path.clone());
        let error = refused(unusable).await;
        assert!(matches!(error, StartError::Config(_)), "{}: {error:?}", path.display());
        let error = error.to_string();
        assert!(error.starts_with(&format!("--db {}: {says}", path.display())), "{error}");
    }
    assert_eq!(std::fs::read_to_string(&text).unwrap(), notes, "the file is left as it was");
    // Another application's database, or one with a table of the same name, is not this
    // service's: refused as a setting, and left as it was (no table of the service added).
    let tables = |path: &std::path::Path| -> Vec<String> {
        let conn = rusqlite::Connection::open(path).unwrap();
        let mut names = conn.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").unwrap();
        names.query_map([], |row| row.get(0)).unwrap().collect::<Result<_, _>>().unwrap()
    };
    for (name, table, says) in [
        ("foreign.db", "CREATE TABLE invoices (id INTEGER PRIMARY KEY)", "the table `invoices`"),
        (
            "clash.db",
            "CREATE TABLE accounts (id TEXT, whatever INTEGER)",
            "the table `accounts` with the columns id, whatever",
        ),
        ("view.db", "CREATE VIEW report AS SELECT 1", "the view `report`"),
        ("prefixed.db", "CREATE TABLE sqliteinvoices (id INTEGER)", "the table `sqliteinvoices`"),
    ] {
        let path = dir.join(name);
        rusqlite::Connection::open(&path).unwrap().execute_batch(table).unwrap();
        let before = tables(&path);
        let mut foreign = config(5);
        foreign.db = Some(path.clone());
        let error = refused(foreign).await;
        assert!(matches!(error, StartError::Config(_)), "{name}: {error:?}");
        let error = error.to_string();
        assert!(error.contains(&format!("it holds what is not this service's: {says}")), "{error}");
        assert_eq!(tables(&path), before, "{name} is left as it was");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A PostgreSQL URL naming a database or a role the server does not have is a setting to fix,
/// not an outage to wait out: exit 2 with the server's reason and what to change, as for a bad
/// flag, where a server that does not answer exits 1.
#[tokio::test]
async fn a_database_or_role_the_server_does_not_have_exits_2() {
    let server = e2e_support::postgres::server_url();
    let (base, _) = server.rsplit_once('/').expect("a URL ending in /DATABASE");
    let missing_database = format!("{base}/no_such_inventory");
    let (scheme, rest) = server.split_once("://").expect("a URL with a scheme");
    let at_host = rest.rsplit_once('@').map_or(rest, |(_, host)| host);
    let missing_role = format!("{scheme}://no_such_role@{at_host}");
    for (db, code, fix) in
        [(&missing_database, "3D000", "name a database that exists"), (&missing_role, "28", "name a role")]
    {
        let mut settings = config(5);
        settings.db = Some(db.as_str().into());
        let error = e2e_support::service::build(settings, tokio_util::sync::CancellationToken::new())
            .await
            .err()
            .expect("refused");
        let StartError::Config(message) = &error else { panic!("{db}: a setting to fix, not an outage: {error:?}") };
        assert!(message.starts_with("--db: the server refuses the URL: "), "{db}: {message}");
        assert!(message.contains(&format!("({code}")) && message.contains(fix), "{db}: {message}");

        let (exit, stderr) = exit_of(&["--db", db], &[]).await;
        assert_eq!(exit, Some(2), "{db}: {stderr}");
        assert!(stderr.starts_with("error: --db: the server refuses the URL: "), "{db}: {stderr}");
    }
}

/// A setting of the URL's `options` the server refuses on connecting is a setting to fix too
/// (exit 2, with the server's reason), not an outage: a value the parameter does not take
/// (22023), a parameter that does not exist (42704), one that cannot be set on connecting (55P02).
#[tokio::test]
async fn an_option_the_server_refuses_exits_2() {
    let db = e2e_support::postgres::fresh_database().await;
    let _release = e2e_support::postgres::Release::of(&db);
    let cases = [
        ("-c%20lock_timeout%3D-1", "22023", "lock_timeout"),
        ("-c%20no_such_setting%3Don", "42704", "no_such_setting"),
        ("-c%20shared_buffers%3D1MB", "55P02", "shared_buffers"),
    ];
    for (options, code, says) in cases {
        let url = format!("{db}?options={options}");
        let mut settings = config(5);
        settings.db = Some(url.as_str().into());
        let error = e2e_support::service::build(settings, tokio_util::sync::CancellationToken::new())
            .await
            .err()
            .expect("refused");
        let StartError::Config(message) = &error else { panic!("{url}: a setting to fix, not an outage: {error:?}") };
        assert!(message.starts_with("--db: the server refuses the URL: "), "{url}: {message}");
        assert!(message.contains(&format!("({code})")) && message.contains(says), "{url}: {message}");
        assert!(message.contains("give the URL's options only settings the server accepts"), "{url}: {message}");
    }
    let (exit, stderr) = exit_of(&["--db", &format!("{db}?options=-c%20lock_timeout%3D-1")], &[]).await;
    assert_eq!(exit, Some(2), "{stderr}");
    assert!(stderr.starts_with("error: --db: the server refuses the URL: "), "{stderr}");
}

/// A stand-in for a PostgreSQL server on a free loopback port, for what the test's own server
/// (which trusts every connection, and is a primary) cannot show: on each connection it reads
/// from the client (one read for each of the driver's first, short messages) and answers each
/// read with the next of `replies`. Returns its address and its task.
async fn stand_in(replies: Vec<Vec<u8>>) -> (std::net::SocketAddr, tokio::task::JoinHandle<()>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let replies = replies.clone();
            tokio::spawn(async move {
                let mut read = [0; 4096];
                for reply in replies {
                    let _ = socket.read(&mut read).await;
                    let _ = socket.write_all(&reply).await;
                }
                let _ = socket.read(&mut read).await;
            });
        }
    });
    (addr, server)
}

/// A message of PostgreSQL's protocol: its type, its length, its body.
fn message(kind: u8, body: &[u8]) -> Vec<u8> {
    let length = u32::try_from(body.len() + 4).unwrap();
    [&[kind][..], &length.to_be_bytes(), body].concat()
}

/// Runs the service on `db` in-process and as the built example: both must refuse it as a
/// setting to fix (exit 2), with a message that starts with `says`.
async fn refused_as_a_setting(db: &str, says: &str) {
    let mut settings = config(5);
    settings.db = Some(db.into());
    let error =
        e2e_support::service::build(settings, tokio_util::sync::CancellationToken::new()).await.err().expect("refused");
    let StartError::Config(message) = &error else { panic!("{db}: a setting to fix, not an outage: {error:?}") };
    assert!(message.starts_with(says), "{db}: {message}");
    let (exit, stderr) = exit_of(&["--db", db], &[]).await;
    assert_eq!(exit, Some(2), "{db}: {stderr}");
    assert!(stderr.starts_with(&format!("error: {says}")), "{db}: {stderr}");
}

/// A server that demands a password the URL does not give is a setting to fix too (exit 2): the
/// driver refuses before asking the server again ("invalid configuration: password missing").
/// The stand-in asks for a cleartext password, as a server with `password` auth does.
#[tokio::test]
async fn a_password_the_server_demands_and_the_url_lacks_exits_2() {
    let (addr, server) = stand_in(vec![message(b'R', &3_u32.to_be_bytes())]).await;
    let db = format!("postgres://app@{addr}/inventory?sslmode=disable");
    refused_as_a_setting(&db, "--db: the URL cannot connect: invalid configuration: password missing").await;
    server.abort();
}

/// A URL asking for `target_session_attrs=read-write` of a server that is a standby (it says
/// `transaction_read_only` is on) is a setting to fix too: name the primary.
#[tokio::test]
async fn a_standby_where_the_url_asks_for_read_write_exits_2() {
    let column = [&b"transaction_read_only\0"[..], &[0; 6], &25_u32.to_be_bytes(), &[0xff; 6], &[0; 2]].concat();
    let replies = vec![
        // AuthenticationOk, then ReadyForQuery (idle).
        [message(b'R', &[0; 4]), message(b'Z', b"I")].concat(),
        // `SHOW transaction_read_only`: one text column, one row, "on".
        [
            message(b'T', &[&1_u16.to_be_bytes()[..], &column].concat()),
            message(b'D', &[&1_u16.to_be_bytes()[..], &2_u32.to_be_bytes(), b"on"].concat()),
            message(b'C', b"SHOW\0"),
            message(b'Z', b"I"),
        ]
        .concat(),
    ];
    let (addr, server) = stand_in(replies).await;
    let db = format!("postgres://app@{addr}/inventory?sslmode=disable&target_session_attrs=read-write");
    refused_as_a_setting(&db, "--db: the server is not what the URL's target_session_attrs asks for: ").await;
    server.abort();
}

/// Under `--log-format json` a start-up that fails once the log is installed writes its reason
/// as an `ERROR` event of the log: every line of standard error is a JSON object (an address
/// taken, a database that refuses connections), and the exit code stays 1.
#[tokio::test]
async fn a_failed_start_under_the_json_log_writes_only_json_lines() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let refused = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let down = format!("postgres://nobody@{refused}/inventory");
    let cases = [
        (vec!["--addr", addr.as_str(), "--log-format", "json"], "could not listen on"),
        (vec!["--addr", "127.0.0.1:0", "--db", down.as_str(), "--log-format", "json"], "could not open PostgreSQL at"),
    ];
    for (args, says) in cases {
        // The default filter, whatever the test's environment says: a filter that drops the
        // event gets the plain line instead.
        let (exit, stderr) = exit_of(&args, &[("RUST_LOG", "info")]).await;
        assert_eq!(exit, Some(1), "{args:?}: {stderr}");
        let lines: Vec<serde_json::Value> = stderr
            .lines()
            .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}): {line}")))
            .collect();
        let error = lines.iter().find(|line| line["level"] == "ERROR").unwrap_or_else(|| panic!("{args:?}: {stderr}"));
        assert!(error["message"].as_str().is_some_and(|message| message.starts_with(says)), "{args:?}: {error}");
    }
    drop(taken);
}

/// A start that cannot listen touches no database: the address is taken before the store is
/// opened, so a database file named beside a taken address is not created, let alone seeded
/// (a corrected start would then serve what the failed one left).
#[tokio::test]
async fn a_taken_address_leaves_no_database_behind() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let dir = std::env::temp_dir().join(format!("service-accounts-taken-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("inventory.db");
    let db = db.to_str().unwrap();
    let (exit, stderr) = exit_of(&["--addr", addr.as_str(), "--db", db, "--accounts", "500"], &[]).await;
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().map(|entry| entry.file_name()).collect();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(exit, Some(1), "{stderr}");
    assert!(stderr.contains("could not listen on"), "{stderr}");
    assert!(left.is_empty(), "a start that could not listen left {left:?}");
    drop(taken);
}

/// A malformed PostgreSQL URL exits as every other bad `--db` value does: 2, with the reason
/// and the usage.
#[tokio::test]
async fn a_malformed_postgres_url_exits_2_with_the_usage() {
    for (db, says) in [
        ("postgres://", "error: --db: the PostgreSQL URL names no host"),
        ("postgres://nobody@127.0.0.1/inventory?connect_timeout=abc", "error: --db: invalid connection string: "),
    ] {
        let (code, stderr) = exit_of(&["--db", db], &[]).await;
        assert_eq!(code, Some(2), "{db}: {stderr}");
        assert!(stderr.starts_with(says), "{db}: {stderr}");
        assert!(stderr.contains("\nusage: service_accounts"), "{db}: {stderr}");
    }
}

/// A listener that accepts connections and never says a word on them, as a server that hangs
/// would; returns its port.
async fn silent_server() -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((connection, _)) = listener.accept().await {
            held.push(connection);
        }
    });
    port
}

/// A PostgreSQL server that accepts the connection and never answers does not hold the start-up
/// forever: it fails after the URL's `connect_timeout`, or 10 s without one, saying so in one line.
#[tokio::test]
async fn a_database_that_never_answers_fails_the_start_up_in_time() {
    let port = silent_server().await;
    for (query, within) in [("?connect_timeout=1", 1), ("", 10)] {
        let mut silent = config(5);
        silent.db = Some(format!("postgres://nobody@127.0.0.1:{port}/inventory{query}").into());
        let started = std::time::Instant::now();
        let build = e2e_support::service::build(silent, tokio_util::sync::CancellationToken::new());
        let error = match tokio::time::timeout(Duration::from_secs(within + 20), build).await {
            Err(_) => panic!("the start-up still waits after {} s", within + 20),
            Ok(Ok(_)) => panic!("the service started"),
            Ok(Err(error)) => error,
        };
        assert!(matches!(error, StartError::Failed(_)), "{error:?}");
        let error = error.to_string();
        assert!(started.elapsed() >= Duration::from_secs(within), "{error}");
        assert!(error.starts_with("could not open PostgreSQL at postgres://"), "{error}");
        assert!(error.contains(&format!("did not finish connecting within {within} s")), "{error}");
        assert!(!error.contains('\n'), "{error}");
    }

    // The built example exits with that line.
    let db = format!("postgres://nobody@127.0.0.1:{port}/inventory?connect_timeout=1");
    let (code, stderr) = exit_of(&["--db", &db, "--addr", "127.0.0.1:0"], &[]).await;
    assert_eq!(code, Some(1), "{stderr}");
    let last = stderr.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("error: could not open PostgreSQL at postgres://") && last.contains("within 1 s"),
        "{stderr}"
    );
}

/// A replica listens only once its database is open: while it waits on one that never answers,
/// a connection to its address is refused at once (a load balancer's check moves on), never
/// accepted to wait as long as the start-up does; the start that fails never listened.
#[tokio::test]
async fn a_replica_refuses_connections_until_its_database_is_open() {
    let silent = silent_server().await;
    let addr = {
        let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        free.local_addr().unwrap()
    };
    let mut waiting = config(5);
    waiting.addr = addr;
    waiting.db = Some(format!("postgres://nobody@127.0.0.1:{silent}/inventory?connect_timeout=3").into());
    let start = tokio::spawn(e2e_support::service::start(waiting));
    let mut tries = 0;
    while !start.is_finished() && tries < 10 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        match tokio::net::TcpStream::connect(addr).await {
            Err(error) => assert_eq!(error.kind(), std::io::ErrorKind::ConnectionRefused, "{error}"),
            Ok(_) => panic!("a connection to {addr} was accepted while the database was not open"),
        }
        tries += 1;
    }
    assert_eq!(tries, 10, "the start-up ended before its connect_timeout");
    let error = match start.await.unwrap() {
        Ok(_) => panic!("the service started on a database that never answers"),
        Err(error) => error.to_string(),
    };
    assert!(error.contains("did not finish connecting within 3 s"), "{error}");
    let refused = tokio::net::TcpStream::connect(addr).await.expect_err("a failed start left nothing listening");
    assert_eq!(refused.kind(), std::io::ErrorKind::ConnectionRefused);
}

/// Starts the service on `database`, creates an account, restarts it on the same database:
/// the account, the snapshot counter and the seed (not repeated) survive the restart.
async fn survives_a_restart(database: impl Fn() -> Config) {
    let h = Harness::start(database()).await;
    let created = h.post("/service-accounts", "admin", &json!({"name": "svc-south-kept", "tenant": "south"})).await;
    assert_eq!(created.status, 201);
    let id = created.body["account"]["id"].as_str().unwrap().to_owned();
    let snapshot = created.body["snapshot"].clone();
    assert!(snapshot.as_str().is_some_and(|s| s.starts_with("s-")), "{:?}", created.body);
    let before = h.get("/service-accounts/count", "admin").await.body["count"].clone();
    h.running.stop().await.unwrap();

    let h = Harness::start(database()).await;
    let again = h.get(&format!("/service-accounts/{id}"), "admin").await;
    assert_eq!(again.body["name"], "svc-south-kept");
    let page = h.get("/service-accounts?page_size=1", "admin").await;
    assert_eq!(page.body["page"]["snapshot"], snapshot, "the snapshot counter survived the restart");
    let count = h.get("/service-accounts/count", "admin").await;
    assert_eq!(count.body["count"], before, "the seed was not repeated on a non-empty database");
}

#[tokio::test]
async fn a_database_file_keeps_accounts_and_snapshots_across_restarts() {
    let dir = std::env::temp_dir().join(format!("service-accounts-e2e-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("inventory.sqlite");
    let _ = std::fs::remove_file(&path);
    survives_a_restart(|| Config { db: Some(path.clone()), ..config(40) }).await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// The same over PostgreSQL: a second start against a seeded database keeps its rows and counter.
#[tokio::test]
async fn a_postgres_database_keeps_accounts_and_snapshots_across_restarts() {
    let url = e2e_support::postgres::fresh_database().await;
    survives_a_restart(|| Config { db: Some(url.clone().into()), ..config(40) }).await;
}

/// A lifetime of 0 is refused on start, by the built example as every bad flag is (exit 2, the
/// reason and the usage), and in code: `--snapshot-retention 0` would expire every snapshot but
/// the current one, so that a first page read while another request writes is refused as
/// expired (410) before its client saw it.
#[tokio::test]
async fn a_lifetime_of_0_exits_2_with_the_usage() {
    for flag in ["--cursor-ttl", "--snapshot-retention"] {
        let (code, stderr) = exit_of(&[flag, "0"], &[]).await;
        assert_eq!(code, Some(2), "{flag}: {stderr}");
        assert!(stderr.starts_with(&format!("error: {flag} must be at least 1\n")), "{flag}: {stderr}");
        assert!(stderr.contains("\nusage: service_accounts"), "{flag}: {stderr}");
    }
    let zero = Config { snapshot_retention: Duration::ZERO, ..config(5) };
    let error = e2e_support::service::build(zero, tokio_util::sync::CancellationToken::new()).await.err();
    assert_eq!(error, Some(StartError::Config("--snapshot-retention must be positive".to_owned())));
}

/// A URL whose options make every transaction read-only, or set a statement timeout too short
/// for the service's own statements (the check it makes of each new connection among them), is
/// refused as `target_session_attrs=read-only` is: exit 2, the reason in one line and the usage,
/// before the database is touched; never an outage (exit 1) a supervisor would restart for ever.
#[tokio::test]
async fn a_read_only_session_or_a_statement_timeout_too_short_exits_2() {
    let db = e2e_support::postgres::fresh_database().await;
    let _release = e2e_support::postgres::Release::of(&db);
    let cases = [
        (
            "-c%20default_transaction_read_only%3Don",
            "--db: the URL's options set default_transaction_read_only to 'on', which cannot work: this service \
             writes",
        ),
        (
            "-c%20statement_timeout%3D1ms",
            "--db: the URL's options set statement_timeout to '1ms', which is too short: under 100 ms the server \
             would cancel the service's ordinary statements",
        ),
    ];
    for (options, says) in cases {
        let url = format!("{db}?options={options}");
        let mut settings = config(5);
        settings.db = Some(url.as_str().into());
        let error = e2e_support::service::build(settings, tokio_util::sync::CancellationToken::new()).await.err();
        let Some(StartError::Config(message)) = &error else { panic!("{url}: a setting to fix: {error:?}") };
        assert!(message.starts_with(says), "{url}: {message}");
        let (code, stderr) = exit_of(&["--db", &url, "--addr", "127.0.0.1:0"], &[]).await;
        assert_eq!(code, Some(2), "{url}: {stderr}");
        let (first, rest) = stderr.split_once('\n').unwrap_or((&stderr, ""));
        assert!(first.starts_with(&format!("error: {says}")), "{url}: {stderr}");
        assert!(rest.starts_with("usage: service_accounts"), "{url}: {stderr}");
    }

    assert_eq!(e2e_support::postgres::public_tables(&db).await, 0, "the database was neither created into nor seeded");
}

/// An application role that may read and write every table of the service but create none (no
/// `CREATE` on schema `public`, PostgreSQL 15's default) starts on a database whose tables its
/// owner created: the schema is there, so the service creates nothing. On a database without
/// the tables, or where it lacks a privilege the service needs, it is refused as a setting to
/// fix (exit 2), saying what to grant, never as an outage (exit 1) a supervisor would restart
/// for ever.
#[tokio::test]
async fn an_application_role_without_create_starts_on_a_prepared_database_and_is_told_what_to_grant() {
    let (prepared, empty) =
        (e2e_support::postgres::fresh_database().await, e2e_support::postgres::fresh_database().await);
    let _release = (e2e_support::postgres::Release::of(&prepared), e2e_support::postgres::Release::of(&empty));
    let owner = Harness::start(Config { db: Some(prepared.as_str().into()), ..config(5) }).await;
    owner.running.stop().await.unwrap();

    let role = format!("app_{}", std::process::id());
    let server = e2e_support::postgres::server_url();
    e2e_support::postgres::execute(server, &format!("DROP ROLE IF EXISTS {role}; CREATE ROLE {role} LOGIN")).await;
    let grant = format!("GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {role}");
    e2e_support::postgres::execute(&prepared, &format!("REVOKE CREATE ON SCHEMA public FROM PUBLIC; {grant}")).await;
    e2e_support::postgres::execute(&empty, "REVOKE CREATE ON SCHEMA public FROM PUBLIC").await;
    let as_role = |url: &str| {
        let (scheme, rest) = url.split_once("://").unwrap();
        let (_, server) = rest.rsplit_once('@').unwrap();
        format!("{scheme}://{role}@{server}")
    };

    let app = Harness::start(Config { db: Some(as_role(&prepared).into()), ..config(5) }).await;
    assert_eq!(app.get("/service-accounts?page_size=1", "admin").await.status, 200);
    let created = app.post("/service-accounts", "admin", &json!({"name": "svc-by-app", "tenant": "north"})).await;
    assert_eq!(created.status, 201, "{:?}", created.body);
    app.running.stop().await.unwrap();

    let refused = async |url: &str, says: &[&str]| {
        let settings = Config { db: Some(url.into()), ..config(5) };
        let error = e2e_support::service::build(settings, tokio_util::sync::CancellationToken::new()).await.err();
        let Some(StartError::Config(message)) = &error else { panic!("{url}: a setting to fix: {error:?}") };
        for said in says {
            assert!(message.contains(said), "{url}: {message}");
        }
        let (code, stderr) = exit_of(&["--db", url, "--addr", "127.0.0.1:0"], &[]).await;
        assert_eq!(code, Some(2), "{url}: {stderr}");
        assert!(stderr.starts_with(&format!("error: {message}")), "{url}: {stderr}");
    };
    let create = format!("GRANT CREATE ON SCHEMA public TO {role}");
    refused(
        &as_role(&empty),
        &["the database lacks the service's tables", "permission denied for schema public", &create],
    )
    .await;
    e2e_support::postgres::execute(server, &format!("ALTER ROLE {role} SET default_transaction_read_only = on")).await;
    refused(&as_role(&prepared), &["makes this session's transactions read-only", "this service writes"]).await;
    e2e_support::postgres::execute(server, &format!("ALTER ROLE {role} RESET default_transaction_read_only")).await;
    e2e_support::postgres::execute(&prepared, &format!("REVOKE UPDATE ON meta, credentials FROM {role}")).await;
    refused(
        &as_role(&prepared),
        &[&format!("the role {role} lacks privileges"), "meta (UPDATE), credentials (UPDATE)"],
    )
    .await;

    e2e_support::postgres::execute(&prepared, &format!("REVOKE SELECT ON meta FROM {role}")).await;
    refused(&as_role(&prepared), &["may not read or write the service's tables", "permission denied for table meta"])
        .await;

    e2e_support::postgres::execute(&prepared, &format!("DROP OWNED BY {role}")).await;
    e2e_support::postgres::execute(&empty, &format!("DROP OWNED BY {role}")).await;
    e2e_support::postgres::execute(server, &format!("DROP ROLE {role}")).await;
}

/// The banner says where the key ring came from and its key ids, the signing one first (never
/// a secret); a `COMPLETENESS_CURSOR_KEYS` that `--keys-file` overrides is named in a warning,
/// not silently ignored.
#[cfg(unix)]
#[tokio::test]
async fn the_banner_names_the_key_ring_and_a_ring_not_read_is_warned_about() {
    use tokio::io::{AsyncBufReadExt, BufReader};
    let dir = std::env::temp_dir().join(format!("service-accounts-banner-keys-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("keys");
    let secret = completeness::CursorKeys::generate_secret();
    std::fs::write(&file, format!("k2:{secret}\nk1:{secret}\n")).unwrap();
    let ignored = format!("k9:{secret}");
    let env = [(e2e_support::service::state::KEYS_VARIABLE, ignored.as_str()), ("RUST_LOG", "warn")];
    let args = ["--addr", "127.0.0.1:0", "--accounts", "5", "--keys-file", file.to_str().unwrap()];
    let mut process = example_command(&args, &env).spawn().expect("the example starts");
    let mut banner = BufReader::new(process.stdout.take().unwrap()).lines();
    let mut said = None;
    while let Some(line) = banner.next_line().await.unwrap() {
        if line.starts_with("cursor and evidence keys") {
            said = Some(line);
            break;
        }
    }
    let said = said.expect("a banner line about the key ring");
    let expected =
        format!("cursor and evidence keys from --keys-file {}: signing with k2, also accepting k1", file.display());
    assert_eq!(said, expected);
    let output = terminated(process).await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("COMPLETENESS_CURSOR_KEYS is set and not read: --keys-file gives the key ring"),
        "{stderr}"
    );
    assert!(!stderr.contains(&secret), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Under `--log-format json` nothing but JSON lines comes out: the banner is an `INFO` event
/// `serving` (its URL, store and key ring), not plain text on standard output, which a
/// collector that merges the two streams would read.
#[cfg(unix)]
#[tokio::test]
async fn under_the_json_log_the_banner_is_an_event() {
    use tokio::io::{AsyncBufReadExt, BufReader};
    let args = ["--addr", "127.0.0.1:0", "--accounts", "5", "--log-format", "json"];
    let mut process = example_command(&args, &[("RUST_LOG", "info")]).spawn().expect("the example starts");
    let mut log = BufReader::new(process.stderr.take().unwrap()).lines();
    let mut serving = None;
    let mut timed = Vec::new();
    while let Some(line) = log.next_line().await.unwrap() {
        let event: serde_json::Value = serde_json::from_str(&line).unwrap_or_else(|_| panic!("not JSON: {line}"));
        // A duration is a JSON number, which a log indexer maps once: not `"ms": "20"`.
        if let Some(ms) = event.get("ms") {
            assert!(ms.is_u64(), "{line}");
            timed.push(event["message"].clone());
        }
        if event["fields"]["message"] == "serving" || event["message"] == "serving" {
            serving = Some(event);
            break;
        }
    }
    let serving = serving.expect("a `serving` event");
    assert_eq!(timed, ["seeded", "indexed"], "the start-up's phases with their durations");
    let fields = if serving["fields"].is_object() { &serving["fields"] } else { &serving };
    let url = fields["url"].as_str().expect("its URL").to_owned();
    assert!(url.starts_with("http://127.0.0.1:"), "{serving}");
    assert_eq!(fields["mcp"], format!("{url}/mcp"), "{serving}");
    assert!(fields["keys"].as_str().unwrap_or_default().contains("ephemeral"), "{serving}");
    let ready = reqwest::get(format!("{url}/ready")).await.unwrap();
    assert_eq!(ready.status(), 200);
    let output = terminated(process).await;
    assert!(output.status.success());
    assert_eq!(String::from_utf8_lossy(&output.stdout), "", "nothing on standard output");
    while let Some(line) = log.next_line().await.unwrap_or(None) {
        assert!(serde_json::from_str::<serde_json::Value>(&line).is_ok(), "not JSON: {line}");
    }
}
