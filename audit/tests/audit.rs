//! The audit binary on fixture crates: verdicts per shape, routers across files, a file that
//! does not parse, SARIF structure, `--deny` and `--baseline` exit codes.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

fn run(path: &Path, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-completeness"))
        .args(["completeness", "audit"])
        .arg(path)
        .args(extra)
        .output()
        .expect("the audit binary runs")
}

fn json(path: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["--format", "json"];
    args.extend_from_slice(extra);
    let out = run(path, &args);
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)))
}

/// `(method, path) -> verdict` of a JSON report.
fn verdicts(report: &Value) -> Vec<(String, String, String)> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["method"].as_str().unwrap().to_owned(),
                f["path"].as_str().unwrap().to_owned(),
                f["verdict"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// `GET path` as a list without completeness, in the shape of [`verdicts`].
fn listed(path: &str) -> (String, String, String) {
    ("GET".to_owned(), path.to_owned(), "list_without_completeness".to_owned())
}

fn verdict_of(report: &Value, method: &str, path: &str) -> String {
    verdicts(report)
        .into_iter()
        .find(|(m, p, _)| m == method && p == path)
        .map(|(_, _, v)| v)
        .unwrap_or_else(|| panic!("no finding for {method} {path} in {report:#}"))
}

#[test]
fn every_shape_gets_its_verdict() {
    let report = json(&fixture("shapes"), &[]);
    let expected = [
        ("GET", "/bare-vec", "list_without_completeness"),
        ("GET", "/bytes", "not_a_list"),
        ("GET", "/bytes-or-status", "not_a_list"),
        ("GET", "/json-bytes", "list_without_completeness"),
        ("GET", "/plain-vec", "list_without_completeness"),
        ("GET", "/slice", "list_without_completeness"),
        ("GET", "/map", "list_without_completeness"),
        ("GET", "/set", "list_without_completeness"),
        ("GET", "/result", "list_without_completeness"),
        ("GET", "/alias", "list_without_completeness"),
        ("GET", "/page-struct", "list_without_completeness"),
        ("GET", "/numbered-page", "list_without_completeness"),
        ("GET", "/impl-list", "list_without_completeness"),
        ("GET", "/api/listed", "list_without_completeness"),
        ("GET", "/profile", "nested_collection"),
        ("POST", "/profile", "not_a_list"),
        ("POST", "/api/listed", "not_a_list"),
        ("GET", "/account", "not_a_list"),
        ("GET", "/impl-single", "not_a_list"),
        ("GET", "/foreign", "unknown"),
        ("GET", "/json-value", "list_without_completeness"),
        ("GET", "/json-tuple-list", "list_without_completeness"),
        ("GET", "/json-tuple-single", "not_a_list"),
        // Closures: the values their bodies return decide.
        ("GET", "/closure", "list_without_completeness"),
        ("GET", "/closure-bound", "list_without_completeness"),
        ("GET", "/closure-single", "not_a_list"),
        ("GET", "/closure-opaque", "unknown"),
        ("GET", "/annotated", "reports_completeness"),
        // Chained on `completeness::routing`'s method router: checked like the first method.
        ("GET", "/chained", "reports_completeness"),
        ("POST", "/chained", "reports_completeness"),
        // Chained after conversion to axum's own method router: unchecked, so not taken on trust.
        ("GET", "/unchecked-chain", "reports_completeness"),
        ("POST", "/unchecked-chain", "unknown"),
        ("GET", "/enveloped", "reports_completeness"),
        // On the wire, but hidden from the completeness layer: reported with a fix.
        ("GET", "/json-enveloped", "reports_completeness"),
        ("GET", "/impl-json-enveloped", "reports_completeness"),
        ("GET", "/derived", "reports_completeness"),
        ("GET", "/derived-single", "not_a_list"),
        ("GET", "/exempt", "exempt"),
        // Beside tower services, in a router handed to `axum::serve` as `into_make_service()`.
        ("GET", "/bare-vec-service", "list_without_completeness"),
        // tower-http's file services serve files, not lists; the services they fall back to are
        // seen through, and any other service is one the audit cannot see.
        ("*", "/assets", "exempt"),
        ("*", "/favicon.ico", "exempt"),
        ("*", "/spa", "exempt"),
        ("*", "/downloads", "exempt"),
        ("*", "/legacy", "unknown"),
        ("*", "/docs", "unknown"),
        ("*", "/rewritten", "unknown"),
        ("*", "/own-file", "unknown"),
        ("*", "/as-service", "list_without_completeness"),
        ("GET", "/robots.txt", "exempt"),
        ("GET", "/built-file", "exempt"),
        ("*", "/built-dir", "exempt"),
        ("*", "/built-own", "unknown"),
        ("GET", "/upload", "exempt"),
        ("POST", "/upload", "unknown"),
        // Generic structs and aliases, their parameters bound to the arguments of the use.
        ("GET", "/generic-list", "list_without_completeness"),
        ("GET", "/generic-single", "not_a_list"),
        ("GET", "/generic-newtype", "list_without_completeness"),
        ("GET", "/generic-alias", "list_without_completeness"),
        // Their type arguments read where they are written, not in the wrapper's module.
        ("GET", "/argument-same-name", "list_without_completeness"),
        ("GET", "/argument-renamed", "list_without_completeness"),
        ("GET", "/argument-renamed-alias", "list_without_completeness"),
        ("GET", "/argument-through-aliases", "list_without_completeness"),
        // An alias around `impl IntoResponse`: the body decides.
        ("GET", "/alias-impl-list", "list_without_completeness"),
        ("GET", "/alias-impl-single", "not_a_list"),
        // A generic newtype built in an `impl IntoResponse` body: its argument decides.
        ("GET", "/impl-newtype-list", "list_without_completeness"),
        ("GET", "/impl-newtype-single", "not_a_list"),
        // A generic struct built in a body: the values of its generic members decide; a value
        // the audit cannot see leaves it unknown, not "not a list".
        ("GET", "/impl-generic-list", "list_without_completeness"),
        ("GET", "/impl-generic-single", "not_a_list"),
        ("GET", "/impl-generic-unseen", "unknown"),
        // The error side of an `impl IntoResponse` body (`return Err(..)`, an `Err` arm, what `?`
        // passes up) is not read, as the error of a declared `Result` is not.
        ("GET", "/early-error-single", "not_a_list"),
        ("GET", "/early-error-list", "list_without_completeness"),
        ("GET", "/error-arm-enveloped", "reports_completeness"),
        ("GET", "/try-list", "list_without_completeness"),
        ("GET", "/try-single", "not_a_list"),
        // A constructor declared `-> Self` (or `Result<Self, _>`): the type of its `impl`. A generic
        // one's (or a generic helper's) parameter is bound by the argument passed for it; when the
        // argument does not show what it is, unknown, and the finding says why.
        ("GET", "/constructed-list", "list_without_completeness"),
        ("GET", "/constructed-single", "not_a_list"),
        ("GET", "/constructed-result", "not_a_list"),
        ("GET", "/constructed-generic", "list_without_completeness"),
        ("GET", "/constructed-generic-unseen", "unknown"),
        ("GET", "/helper-wrapped", "list_without_completeness"),
        ("GET", "/option-member-unbound", "unknown"),
        // `Json` and `completeness::routing::get` imported under other names.
        ("GET", "/renamed-json", "list_without_completeness"),
        ("GET", "/renamed-checked", "reports_completeness"),
        // `on` with two methods.
        ("GET", "/filtered", "not_a_list"),
        ("POST", "/filtered", "not_a_list"),
        // Handed to a macro: the router's routes, and the macro's as unknown.
        ("GET", "/before-macro", "list_without_completeness"),
        ("*", "/macro", "unknown"),
        // Mentioned in `tracing::info!`, `tokio::join!` and `tokio::select!`, which add no route.
        ("GET", "/served", "list_without_completeness"),
        // Built inside a struct literal, and in an array merged in a loop (the loop's variable
        // holds the array's routers).
        ("GET", "/in-struct", "list_without_completeness"),
        ("GET", "/in-array", "list_without_completeness"),
        ("GET", "/in-array-too", "list_without_completeness"),
        // Built in the argument of a helper, and added by the helper.
        ("GET", "/handed", "list_without_completeness"),
        ("GET", "/added", "list_without_completeness"),
        // Handed to a helper or a layer and bound again: still served; through a helper declared
        // to return a router, under the prefix of the `nest` it goes to.
        ("GET", "/rebound-helper", "list_without_completeness"),
        ("GET", "/rebound-layer", "list_without_completeness"),
        ("GET", "/reassigned", "list_without_completeness"),
        ("GET", "/wrapped/inner", "list_without_completeness"),
        // The service's own types with the names of the framework's: read by their fields.
        ("GET", "/own-envelope", "list_without_completeness"),
        ("GET", "/own-envelope-built", "list_without_completeness"),
        ("GET", "/own-aggregate", "list_without_completeness"),
        ("GET", "/own-exempt", "nested_collection"),
        ("GET", "/re-exported-envelope", "reports_completeness"),
        // Methods of types of the same name in two modules: the type's own, by `Self` or by path.
        ("GET", "/twin-self-single", "not_a_list"),
        ("GET", "/twin-self-list", "list_without_completeness"),
        // Named as the framework's types, but another crate's or the sources' own: not taken on
        // trust; the framework's, through `use super::*;`, is.
        ("GET", "/namesake-imported", "unknown"),
        ("GET", "/namesake-qualified", "unknown"),
        ("GET", "/namesake-aggregate", "unknown"),
        ("GET", "/namesake-exempt", "unknown"),
        ("GET", "/namesake-own", "list_without_completeness"),
        ("GET", "/namesake-framework", "reports_completeness"),
        // A name a router function's body imports or declares, before the module's of that name.
        ("GET", "/scoped-imported", "list_without_completeness"),
        ("GET", "/scoped-nested", "list_without_completeness"),
        ("GET", "/scoped-module", "not_a_list"),
        ("GET", "/scoped-migrated", "reports_completeness"),
        ("GET", "/twin-path-single", "not_a_list"),
        ("GET", "/twin-path-list", "list_without_completeness"),
        // Lists one level down, in members read as response types are.
        ("GET", "/member-page", "list_without_completeness"),
        ("GET", "/member-double-wrapped", "list_without_completeness"),
        ("GET", "/member-alias", "list_without_completeness"),
        ("GET", "/member-alias-nested", "nested_collection"),
        ("GET", "/member-flatten", "list_without_completeness"),
        ("GET", "/member-option-page", "list_without_completeness"),
        ("GET", "/member-value", "unknown"),
        ("GET", "/member-foreign", "unknown"),
        ("GET", "/member-stamped", "not_a_list"),
        ("GET", "/member-recursive", "not_a_list"),
        // A collection beside page facts, or beside its own count, is a page.
        ("GET", "/paged-by-facts", "list_without_completeness"),
        ("GET", "/paged-with-count", "list_without_completeness"),
        ("GET", "/counted-other", "nested_collection"),
        // A collection two levels down, in a member that is a resource of its own, plain or
        // through a generic wrapper.
        ("GET", "/member-nested", "nested_collection"),
        // Members as serde writes them: a skipped one is not written, a renamed one is written
        // under its new name, a flattened map's entries are members.
        ("GET", "/alias-result", "list_without_completeness"),
        ("GET", "/serde-skipped", "not_a_list"),
        ("GET", "/serde-renamed", "list_without_completeness"),
        // Pagination and list members renamed into another case.
        ("GET", "/serde-renamed-page", "list_without_completeness"),
        ("GET", "/serde-cased-page", "list_without_completeness"),
        // A list of the service's own `Warning`s is data; the framework's warnings are not.
        ("GET", "/own-warnings", "list_without_completeness"),
        ("GET", "/framework-warnings", "not_a_list"),
        ("GET", "/serde-flattened-map", "not_a_list"),
        ("GET", "/member-wrapped-nested", "nested_collection"),
        // Variables of the same name: the binding in scope where the value is returned.
        ("GET", "/shadowed-csv", "list_without_completeness"),
        // A static or constant of the sources, by its declared type.
        ("GET", "/generic-helper-list", "list_without_completeness"),
        ("GET", "/generic-helper-single", "not_a_list"),
        ("GET", "/static-list", "list_without_completeness"),
        ("GET", "/const-number", "not_a_list"),
        ("GET", "/shadowed-inner-list", "not_a_list"),
        ("GET", "/closure-let", "list_without_completeness"),
        ("GET", "/pattern-bound", "list_without_completeness"),
        ("GET", "/match-bound", "list_without_completeness"),
        // Types that are never lists, built in the body; a WebSocket upgrade.
        ("GET", "/html-page", "not_a_list"),
        ("GET", "/redirected", "not_a_list"),
        ("GET", "/upgraded", "not_a_list"),
        // A method on a value of a type the audit does not read: the one of that name, if a list.
        ("GET", "/method-of-state", "list_without_completeness"),
        ("GET", "/method-not-taken", "unknown"),
        // Methods of a trait (a store behind `dyn Store`): the trait's declaration and every
        // implementation's definition agree that the method returns a list.
        ("GET", "/trait-method", "list_without_completeness"),
        ("GET", "/provided-method", "list_without_completeness"),
        ("GET", "/trait-method-single", "unknown"),
        // `value.map(|x| ..)`: what the closure returns, `x` what `value` holds on success.
        ("GET", "/mapped-to-helper", "list_without_completeness"),
        ("GET", "/mapped-to-count", "not_a_list"),
        ("GET", "/created", "not_a_list"),
        ("GET", "/pattern-unread", "unknown"),
        ("GET", "/error-mapped", "list_without_completeness"),
        // utoipa-axum's `routes!`: the method and path of each handler's `#[utoipa::path]`.
        ("GET", "/documented", "list_without_completeness"),
        ("GET", "/documented/by-id/{id}", "not_a_list"),
        ("HEAD", "/documented/by-id/{id}", "not_a_list"),
        // Found, without an attribute that places it: a list still, at any method and path.
        ("*", "/documented/*", "list_without_completeness"),
        ("GET", "/split", "list_without_completeness"),
        ("*", "/docs/*", "exempt"),
        // `json!` and `serde_json::to_value`: what the tokens show.
        ("GET", "/json-of-variable", "list_without_completeness"),
        ("GET", "/json-wrapped", "list_without_completeness"),
        ("GET", "/json-nested", "nested_collection"),
        ("GET", "/json-single", "not_a_list"),
        ("GET", "/json-converted", "list_without_completeness"),
        ("GET", "/json-opaque", "unknown"),
        ("GET", "/json-array", "list_without_completeness"),
        ("GET", "/json-macro-static", "unknown"),
        ("GET", "/json-other-crate-const", "unknown"),
        // Fallbacks: a handler is a route of its own; a router as a fallback service serves its routes.
        ("GET", "/fallback-home", "not_a_list"),
        ("*", "(fallback)", "list_without_completeness"),
        ("GET", "/nested-fallback/one", "not_a_list"),
        ("*", "/nested-fallback/(fallback)", "list_without_completeness"),
        ("GET", "/fallback-service-home", "not_a_list"),
        ("GET", "/legacy-fallback/items", "list_without_completeness"),
        // aide's `ApiRouter::api_route`, with its documenting method routers (`get_with`).
        ("GET", "/aide/items", "list_without_completeness"),
        ("GET", "/aide/account", "not_a_list"),
        ("POST", "/aide/account", "not_a_list"),
        ("POST", "/aide/more", "list_without_completeness"),
        // Routes added by a helper called once per route: each call's path and handler.
        ("GET", "/helper-list", "list_without_completeness"),
        ("GET", "/helper-annotated", "reports_completeness"),
        ("GET", "/helper-single", "not_a_list"),
        ("GET", "/helper-const", "list_without_completeness"),
        // Enums: a variant that would make a struct a list makes the enum one.
        ("GET", "/enum-generic-list", "list_without_completeness"),
        ("GET", "/enum-generic-single", "not_a_list"),
        ("GET", "/enum-tuple-list", "list_without_completeness"),
        ("GET", "/enum-nested", "nested_collection"),
        // A route an early `return` adds, beside the tail's; axum-extra's and aide's routing methods.
        ("GET", "/extra/early-base", "list_without_completeness"),
        ("GET", "/extra/early-admin", "list_without_completeness"),
        ("GET", "/extra/early-ok-base", "list_without_completeness"),
        ("GET", "/extra/early-ok-debug", "list_without_completeness"),
        ("GET", "/extra/early-ok-trace", "list_without_completeness"),
        ("GET", "/extra/tsr-items", "list_without_completeness"),
        // Bound again in a branch: as it was, and as the branch left it.
        ("GET", "/extra/prefixed", "list_without_completeness"),
        ("GET", "/extra/<prefix>/prefixed", "list_without_completeness"),
        ("GET", "/extra/api-v1/items", "list_without_completeness"),
        // Handed to a routing method the audit does not know: found, its route not read.
        ("*", "/extra/*", "list_without_completeness"),
        // A collection beside a pagination block, a token or a has-more flag is a page; beside a
        // total among a resource's members, a nested collection.
        ("GET", "/page-paginated", "list_without_completeness"),
        ("GET", "/page-linked", "list_without_completeness"),
        ("GET", "/page-info", "list_without_completeness"),
        ("GET", "/page-token", "list_without_completeness"),
        ("GET", "/page-more", "list_without_completeness"),
        ("GET", "/page-meta", "list_without_completeness"),
        ("GET", "/order", "nested_collection"),
        // A member that is a list type of its own, beside a resource's members: nested.
        ("GET", "/application", "nested_collection"),
        ("GET", "/article", "nested_collection"),
        ("GET", "/fetched", "list_without_completeness"),
    ];
    for (method, path, verdict) in expected {
        assert_eq!(verdict_of(&report, method, path), verdict, "{method} {path}");
    }
    assert_eq!(report["findings"].as_array().unwrap().len(), expected.len(), "{report:#}");
    let by_macros: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["handler"].as_str().filter(|h| h.ends_with("!(..)")))
        .collect();
    assert_eq!(by_macros, ["list_route!(..)"], "only the macro that gives a router is a route");
}

#[test]
fn a_finding_names_handler_location_and_fix() {
    let report = json(&fixture("shapes"), &[]);
    let finding = report["findings"].as_array().unwrap().iter().find(|f| f["path"] == "/alias").unwrap();
    assert_eq!(finding["handler"], "alias");
    assert_eq!(finding["file"], "src/main.rs");
    assert_eq!(finding["line"], 75);
    let closure = report["findings"].as_array().unwrap().iter().find(|f| f["path"] == "/closure").unwrap();
    assert_eq!(closure["handler"], "closure", "named without its line, which is in the finding: {closure}");
    assert!(closure["why"].as_str().unwrap().contains("`vec![..]`"), "{closure}");
    let opaque = report["findings"].as_array().unwrap().iter().find(|f| f["path"] == "/closure-opaque").unwrap();
    assert!(opaque["why"].as_str().unwrap().contains("move it into a named function"), "{opaque}");
    assert!(finding["why"].as_str().unwrap().contains("`Items`"), "{finding}");
    assert!(finding["fix"].as_str().unwrap().contains("Envelope<Item>"), "{finding}");
    let created = report["findings"].as_array().unwrap().iter().find(|f| f["path"] == "/created").unwrap();
    assert_eq!(created["why"], "`Account` has no collection member", "the body explains, not the status: {created}");
    let object = report["findings"].as_array().unwrap().iter().find(|f| f["path"] == "/json-nested").unwrap();
    assert!(object["why"].as_str().unwrap().contains("whose `tags` member is a collection"), "{object}");
    assert!(
        object["fix"].as_str().unwrap().contains("a struct of its members, returned in place of `json!({..})`"),
        "{object}"
    );
    let nested = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "/profile" && f["method"] == "GET")
        .unwrap();
    assert!(nested["fix"].as_str().unwrap().contains("#[envelope(bounded"), "{nested}");
    // Through a generic alias, the type as written, and the fix on the page struct inside.
    let aliased = report["findings"].as_array().unwrap().iter().find(|f| f["path"] == "/alias-result").unwrap();
    assert_eq!(aliased["why"], "returns `AppResult<Json<Articles>>`, a list without a completeness block");
    assert!(aliased["fix"].as_str().unwrap().starts_with("derive `ResultEnvelope` on `Articles`"), "{aliased}");
    // Two levels down, the struct whose own member is the collection is the one to mark, not the
    // generic wrapper around it.
    let deeper = report["findings"].as_array().unwrap().iter().find(|f| f["path"] == "/member-wrapped-nested").unwrap();
    assert_eq!(deeper["why"], "`ApiResponse` is a single resource whose `data.articles` member is a collection");
    assert!(deeper["fix"].as_str().unwrap().contains("on `Author` and mark `articles` with"), "{deeper}");
    let method_router = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "/api/listed" && f["method"] == "GET")
        .unwrap();
    assert_eq!(method_router["handler"], "Self::listed");
    for path in ["/json-enveloped", "/impl-json-enveloped"] {
        let wrapped = report["findings"].as_array().unwrap().iter().find(|f| f["path"] == path).unwrap();
        assert!(wrapped["why"].as_str().unwrap().contains("inside `Json`"), "{wrapped}");
        assert!(wrapped["fix"].as_str().unwrap().contains("instead of `Json(..)`"), "{wrapped}");
    }
    // A reporting response under `axum::routing` carries its block, but nothing acts on it.
    let unchecked = report["findings"].as_array().unwrap().iter().find(|f| f["path"] == "/enveloped").unwrap();
    assert!(unchecked["why"].as_str().unwrap().contains("registered with `axum::routing`"), "{unchecked}");
    assert_eq!(unchecked["fix"], "register it with `completeness::routing::get`", "{unchecked}");
    let checked = report["findings"].as_array().unwrap().iter().find(|f| f["path"] == "/annotated").unwrap();
    assert_eq!(checked["fix"], Value::Null, "{checked}");
    let newtype = report["findings"].as_array().unwrap().iter().find(|f| f["path"] == "/generic-newtype").unwrap();
    assert!(newtype["fix"].as_str().unwrap().starts_with("return `Envelope<Item>`"), "{newtype}");
    let unseen = report["findings"].as_array().unwrap().iter().find(|f| f["path"] == "/impl-generic-unseen").unwrap();
    assert!(unseen["why"].as_str().unwrap().contains("type parameter `T`"), "{unseen}");
    let generic =
        report["findings"].as_array().unwrap().iter().find(|f| f["path"] == "/constructed-generic-unseen").unwrap();
    assert!(generic["why"].as_str().unwrap().contains("type parameter `T`"), "{generic}");
    // A response type of another crate is named: the fix is to audit that crate, not to name it.
    let foreign = report["findings"].as_array().unwrap().iter().find(|f| f["path"] == "/foreign").unwrap();
    assert!(foreign["why"].as_str().unwrap().ends_with("is defined outside the audited sources"), "{foreign}");
    assert!(foreign["fix"].as_str().unwrap().starts_with("audit the crate that defines the type too"), "{foreign}");
    let by_macro = report["findings"].as_array().unwrap().iter().find(|f| f["path"] == "/macro").unwrap();
    assert_eq!(by_macro["handler"], "list_route!(..)", "{by_macro}");
    assert!(by_macro["why"].as_str().unwrap().contains("not expanded by the audit"), "{by_macro}");
    let service = report["findings"].as_array().unwrap().iter().find(|f| f["path"] == "/legacy").unwrap();
    assert!(service["why"].as_str().unwrap().contains("`nest_service` mounts the tower service"), "{service}");
    let files = report["findings"].as_array().unwrap().iter().find(|f| f["path"] == "/assets").unwrap();
    assert!(files["why"].as_str().unwrap().contains("tower-http's `ServeDir`"), "{files}");
    assert_eq!(files["fix"], Value::Null, "{files}");
}

#[test]
fn routers_nested_and_merged_across_files_and_workspace_members_get_full_paths() {
    let report = json(&fixture("nested"), &[]);
    let mut found = verdicts(&report);
    found.sort();
    let mut expected: Vec<(String, String, String)> = [
        ("GET", "/api/v1/admin/audit-log", "list_without_completeness"),
        ("GET", "/api/v1/users", "list_without_completeness"),
        ("GET", "/api/v1/users/{id}/groups", "list_without_completeness"),
        // Re-exported under another name.
        ("GET", "/api/v1/users/people", "list_without_completeness"),
        ("GET", "/health", "not_a_list"),
        ("GET", "/tags", "list_without_completeness"),
        // Nested from another member's library, and from a method.
        ("GET", "/members", "list_without_completeness"),
        ("GET", "/orders", "list_without_completeness"),
        // An associated function of a type of another member.
        ("GET", "/teams", "list_without_completeness"),
        // A trait method of another member's library, called through `dyn`.
        ("GET", "/everyone", "list_without_completeness"),
        // Types of another member's library, imported with a glob.
        ("GET", "/profile-glob", "not_a_list"),
        ("GET", "/roster-glob", "list_without_completeness"),
        // From a function returning `Result<Router, _>`, taken with `?` (and awaited).
        ("GET", "/fallible", "list_without_completeness"),
        ("GET", "/fallible-async", "list_without_completeness"),
        // `Router::route(app, ..)`, `Router::<()>::nest(app, ..)`: the method calls they are.
        ("GET", "/called", "list_without_completeness"),
        ("GET", "/called-nest", "list_without_completeness"),
        // A router the audit cannot follow: its prefix is still reported.
        ("*", "/external", "unknown"),
        ("*", "/mounted", "unknown"),
        // Merged routers and method routers the audit cannot follow: unknown, where they are served.
        ("*", "/*", "unknown"),
        ("*", "/api/v1/*", "unknown"),
        ("*", "/health", "unknown"),
    ]
    .map(|(m, p, v)| (m.to_owned(), p.to_owned(), v.to_owned()))
    .to_vec();
    expected.sort();
    assert_eq!(found, expected);
    let admin = report["findings"].as_array().unwrap().iter().find(|f| f["path"] == "/api/v1/admin/audit-log").unwrap();
    assert_eq!(admin["file"], "crates/api/src/handlers.rs", "the handler is found through `use` in a `#[path]` module");
    let merged = report["findings"].as_array().unwrap().iter().find(|f| f["path"] == "/api/v1/*").unwrap();
    assert_eq!(merged["handler"], "plugins::router()", "{merged}");
    assert!(merged["why"].as_str().unwrap().contains("merged here is built where the audit cannot follow"), "{merged}");
    assert!(merged["fix"].as_str().unwrap().starts_with("audit the crate that builds it too"), "{merged}");
}

#[test]
fn a_file_that_does_not_parse_is_reported_and_skipped() {
    let out = run(&fixture("broken"), &["--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let skipped = report["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 1, "{report:#}");
    assert_eq!(skipped[0]["file"], "src/half_written.rs");
    assert!(skipped[0]["error"].as_str().unwrap().contains("does not parse: an unclosed or mismatched delimiter"));
    assert_eq!(verdict_of(&report, "GET", "/list"), "list_without_completeness", "the rest is still audited");
    let table = String::from_utf8(run(&fixture("broken"), &[]).stdout).unwrap();
    assert!(table.contains("skipped src/half_written.rs"), "{table}");
    assert_eq!(
        run(&fixture("broken"), &["--deny", "skipped", "-q"]).status.code(),
        Some(1),
        "a skipped file is denied"
    );
    let excluded = run(&fixture("broken"), &["--deny", "skipped", "--exclude", "src/half_written.rs", "-q"]);
    assert_eq!(excluded.status.code(), Some(0), "unless it is excluded");
    let absolute = fixture("broken").join("src");
    // `..` is resolved as in the reported paths (a `#[path]` file is reported with it resolved).
    let through_parent = fixture("broken").join("src/../src");
    for written in ["./src/half_written.rs", "src/../src/half_written.rs"] {
        let out = run(&fixture("broken"), &["--deny", "skipped", "--exclude", written, "-q"]);
        assert_eq!(out.status.code(), Some(0), "--exclude {written}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    // The whole of `src/`, however written, leaves out the one route too: a gate on what is
    // left would pass on nothing, so it is an error, as an audit that found no route is.
    for written in ["src/", absolute.to_str().unwrap(), "lib/../src", through_parent.to_str().unwrap()] {
        let out = run(&fixture("broken"), &["--deny", "skipped", "--exclude", written, "-q"]);
        assert_eq!(out.status.code(), Some(2), "--exclude {written}: {}", String::from_utf8_lossy(&out.stderr));
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(
            said.contains("--exclude left out every one of the 1 routes found; --deny passes no audit of nothing"),
            "{said}"
        );
    }
    let root = fixture("broken");
    for written in [".", "./", root.to_str().unwrap()] {
        let out = run(&root, &["--exclude", written, "-q"]);
        assert_eq!(out.status.code(), Some(2), "--exclude {written}");
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(said.contains("names the audited directory itself: it would leave everything out"), "{said}");
    }
    // The manifest named alone: the audited directory is the current one.
    let manifest = Command::new(env!("CARGO_BIN_EXE_cargo-completeness"))
        .args(["completeness", "audit", "Cargo.toml", "-q", "--exclude"])
        .arg(&root)
        .current_dir(&root)
        .output()
        .unwrap();
    assert_eq!(manifest.status.code(), Some(2), "{}", String::from_utf8_lossy(&manifest.stderr));
    let outside = root.parent().unwrap();
    for written in ["..", "../broken/..", outside.to_str().unwrap()] {
        let out = run(&root, &["--exclude", written, "-q"]);
        assert_eq!(out.status.code(), Some(2), "--exclude {written}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("is not inside the audited directory"), "{written}");
    }
    let nothing = run(&fixture("broken"), &["--deny", "skipped", "--exclude", "src/nowhere", "-q"]);
    assert_eq!(nothing.status.code(), Some(1));
    let said = String::from_utf8_lossy(&nothing.stderr);
    assert!(said.contains("warning: --exclude src/nowhere leaves nothing out"), "{said}");
}

#[test]
fn sarif_has_the_required_structure_of_2_1_0() {
    let out = run(&fixture("broken"), &["--format", "sarif"]);
    let log: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(log["version"], "2.1.0");
    assert!(log["$schema"].as_str().unwrap().contains("sarif-2.1.0"));
    let runs = log["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1);
    let driver = &runs[0]["tool"]["driver"];
    assert_eq!(driver["name"], "cargo-completeness");
    let rules: Vec<&str> = driver["rules"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap()).collect();
    let results = runs[0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 2, "one list, one skipped file: {log:#}");
    for result in results {
        let rule = result["ruleId"].as_str().unwrap();
        assert!(rules.contains(&rule), "{rule} is declared in rules");
        assert!(["none", "note", "warning", "error"].contains(&result["level"].as_str().unwrap()));
        assert!(!result["message"]["text"].as_str().unwrap().is_empty());
        let location = &result["locations"][0]["physicalLocation"];
        assert!(location["artifactLocation"]["uri"].as_str().unwrap().starts_with("src/"));
        assert_eq!(location["artifactLocation"]["uriBaseId"], "SRCROOT", "relative to the audited directory");
        assert!(location["region"]["startLine"].as_u64().unwrap() >= 1);
    }
    assert_eq!(results[0]["ruleId"], "list_without_completeness");
    assert_eq!(results[0]["level"], "error");
    assert_eq!(results[1]["ruleId"], "unparseable-file");
    // The audited directory is the base the locations are relative to, so a consumer run from
    // elsewhere (a monorepo's root) resolves them.
    let base = runs[0]["originalUriBaseIds"]["SRCROOT"]["uri"].as_str().unwrap();
    let expected = format!("file://{}/", fixture("broken").canonicalize().unwrap().display());
    assert_eq!(base, expected.replace(' ', "%20"));

    // A module file under a directory with a space, reached with `..`: a clean relative URI.
    let spaced = scratch("sarif-uri");
    fs::create_dir_all(spaced.join("my api")).unwrap();
    fs::create_dir_all(spaced.join("src")).unwrap();
    fs::write(spaced.join("Cargo.toml"), "[package]\nname = \"spaced\"\nversion = \"0.1.0\"\nedition = \"2024\"\n")
        .unwrap();
    fs::write(spaced.join("src/main.rs"), "#[path = \"../my api/list.rs\"]\nmod list;\nfn main() {}\n").unwrap();
    fs::write(
        spaced.join("my api/list.rs"),
        "async fn list() -> axum::Json<Vec<u8>> { todo!() }\npub fn app() -> axum::Router { axum::Router::new().route(\"/l\", axum::routing::get(list)) }\n",
    )
    .unwrap();
    let log: Value = serde_json::from_slice(&run(&spaced, &["--format", "sarif"]).stdout).unwrap();
    let location = &log["runs"][0]["results"][0]["locations"][0]["physicalLocation"];
    assert_eq!(location["artifactLocation"]["uri"], "my%20api/list.rs", "{log:#}");

    // A reporting response with advice is a note; the routes that need nothing are not results.
    let out = run(&fixture("shapes"), &["--format", "sarif"]);
    let log: Value = serde_json::from_slice(&out.stdout).unwrap();
    let results = log["runs"][0]["results"].as_array().unwrap();
    let advice: Vec<&Value> = results.iter().filter(|r| r["ruleId"] == "reports_completeness").collect();
    // Two return an envelope inside `Json`; four more report through `axum::routing`.
    assert_eq!(advice.len(), 6, "{log:#}");
    for note in advice {
        assert_eq!(note["level"], "note");
        let text = note["message"]["text"].as_str().unwrap();
        let wrapped = text.contains("json-enveloped") && text.contains("Fix: return the response itself");
        let unchecked = text.contains("Fix: register it with `completeness::routing::get`");
        assert!(wrapped || unchecked, "{text}");
    }
    let texts: Vec<&str> = results.iter().map(|r| r["message"]["text"].as_str().unwrap()).collect();
    assert!(!texts.iter().any(|t| t.contains("GET /annotated ")), "a checked route needs nothing: {log:#}");
}

/// A report that cannot be written (a full disk) fails the audit, where a CI step would pass
/// on an empty report; a kind denied twice counts its findings once.
#[test]
fn a_report_that_cannot_be_written_fails_and_a_kind_denied_twice_counts_once() {
    let full = fs::OpenOptions::new().write(true).open("/dev/full").expect("/dev/full");
    let out = Command::new(env!("CARGO_BIN_EXE_cargo-completeness"))
        .args(["completeness", "audit", "--format", "sarif", "-q"])
        .arg(fixture("shapes"))
        .stdout(full)
        .output()
        .expect("the audit binary runs");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: cannot write the report: "), "{out:?}");

    let denied = |args: &[&str]| {
        let out = run(&fixture("shapes"), args);
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        String::from_utf8_lossy(&out.stderr).lines().last().unwrap_or_default().to_owned()
    };
    assert_eq!(denied(&["--deny", "list", "--deny", "list"]), denied(&["--deny", "list"]));
}

#[test]
fn deny_list_fails_while_a_list_remains_and_passes_without_one() {
    assert_eq!(run(&fixture("shapes"), &["--deny", "list", "-q"]).status.code(), Some(1));
    assert_eq!(run(&fixture("shapes"), &["-q"]).status.code(), Some(0), "without --deny the audit only reports");
    let clean = scratch("clean");
    fs::create_dir_all(clean.join("src")).unwrap();
    fs::write(clean.join("Cargo.toml"), "[package]\nname = \"clean\"\nversion = \"0.1.0\"\nedition = \"2024\"\n")
        .unwrap();
    fs::write(
        clean.join("src/main.rs"),
        "use completeness::routing::get;\n#[completeness::completeness(resource = \"x\")]\nasync fn list() -> completeness::Envelope<u8, ListReason> { todo!() }\nfn main() { let _r: axum::Router = axum::Router::new().route(\"/x\", get(list)); }\n",
    )
    .unwrap();
    assert_eq!(run(&clean, &["--deny", "list", "-q"]).status.code(), Some(0));
    // The shapes route envelopes with `axum::routing` and inside `Json`: unchecked. The clean
    // service routes its one list with `completeness::routing`.
    assert_eq!(run(&fixture("shapes"), &["--deny", "unchecked", "-q"]).status.code(), Some(1));
    assert_eq!(run(&clean, &["--deny", "unchecked", "-q"]).status.code(), Some(0));
    assert_eq!(run(Path::new("/nonexistent/audit/path"), &["-q"]).status.code(), Some(2), "an audit that cannot run");
    let empty = scratch("empty");
    let nothing = run(&empty, &["-q"]);
    assert_eq!(nothing.status.code(), Some(2), "an audit of nothing is no pass");
    assert!(String::from_utf8_lossy(&nothing.stderr).contains("nothing audited"), "{nothing:?}");
    // A crate one level down is named, not searched for.
    let above = scratch("crate-below");
    fs::create_dir_all(above.join("backend/src")).unwrap();
    fs::write(above.join("backend/Cargo.toml"), "[package]\nname = \"backend\"\nversion = \"0.1.0\"\n").unwrap();
    let named = run(&above, &["-q"]);
    assert_eq!(named.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&named.stderr).contains("crates below it: backend/; audit one of them"),
        "{named:?}"
    );
    // Sources under src/ without a manifest are still found.
    fs::create_dir_all(empty.join("src")).unwrap();
    fs::copy(fixture("shapes").join("src/model.rs"), empty.join("src/main.rs")).unwrap();
    let routeless = run(&empty, &["-q"]);
    assert_eq!(routeless.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&routeless.stderr).contains("warning: "), "{routeless:?}");
    // With no route found, a gate has nothing to pass on: an error, not a pass.
    let gated = run(&empty, &["--deny", "list", "-q"]);
    assert_eq!(gated.status.code(), Some(2), "{gated:?}");
    assert!(String::from_utf8_lossy(&gated.stderr).contains("no route found in 1 files"), "{gated:?}");
    let found = run(&empty, &["--format", "json", "-q"]);
    assert_eq!(found.status.code(), Some(0));
    let report: Value = serde_json::from_slice(&found.stdout).unwrap();
    assert_eq!(report["files"], 1, "the one source under src/ is audited: {report:#}");
    fs::write(clean.join("notes.txt"), "[package]\n").unwrap();
    let not_a_manifest = run(&clean.join("notes.txt"), &["-q"]);
    assert_eq!(not_a_manifest.status.code(), Some(2), "a path that is neither a manifest nor a source");
    let said = String::from_utf8_lossy(&not_a_manifest.stderr);
    assert!(said.contains("not a Cargo.toml, a .rs file or a directory"), "{said}");
}

#[test]
fn a_baseline_lets_known_findings_pass_and_fails_new_ones() {
    let copy = scratch("baseline");
    copy_dir(&fixture("shapes"), &copy);
    let baseline = copy.join("completeness-baseline.json");
    let baseline_arg = baseline.to_str().unwrap();
    let written = run(&copy, &["--baseline", baseline_arg, "--write-baseline", "--deny", "list", "-q"]);
    assert_eq!(written.status.code(), Some(0), "writing a baseline accepts what it wrote");
    assert_eq!(run(&copy, &["--baseline", baseline_arg, "--deny", "list", "-q"]).status.code(), Some(0));
    // The shapes answer blocks past the completeness layer too: known, they pass `--deny
    // unchecked` as known lists pass `--deny list`.
    assert_eq!(run(&copy, &["--deny", "unchecked", "-q"]).status.code(), Some(1), "unchecked without the baseline");
    let unchecked = run(&copy, &["--baseline", baseline_arg, "--deny", "unchecked", "-q"]);
    assert_eq!(unchecked.status.code(), Some(0), "{unchecked:?}");

    // A new bare list: the known ones still pass, the new one fails.
    let main = copy.join("src/main.rs");
    let text = fs::read_to_string(&main).unwrap();
    let text = text.replace(
        ".route(\"/bare-vec\", get(bare_vec))",
        ".route(\"/bare-vec\", get(bare_vec))\n        .route(\"/new-list\", get(plain_vec))",
    );
    fs::write(&main, text).unwrap();
    let out = run(&copy, &["--baseline", baseline_arg, "--deny", "list", "--format", "json", "-q"]);
    assert_eq!(out.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let fresh: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["verdict"] == "list_without_completeness" && f["baselined"] == false)
        .collect();
    // The route added above the closures moved their lines: they are still known.
    assert_eq!(fresh.len(), 1, "{report:#}");
    assert_eq!(fresh[0]["path"], "/new-list");
    // The exit status says which findings failed it, even quiet.
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("audit: 1 denied by --deny:\n  list without completeness: GET /new-list plain_vec (src/main.rs:"),
        "{said}"
    );

    // A known route fixed (here: removed) leaves a stale entry: named, and failed by `--deny
    // stale`, since a route that comes back would match it and pass unnoticed.
    let fixed = fs::read_to_string(&main).unwrap().replace(".route(\"/bare-vec\", get(bare_vec))", "");
    fs::write(&main, fixed).unwrap();
    let stale = run(&copy, &["--baseline", baseline_arg, "--deny", "list", "--format", "json", "-q"]);
    assert_eq!(stale.status.code(), Some(1), "the new list still fails");
    let report: Value = serde_json::from_slice(&stale.stdout).unwrap();
    assert_eq!(
        report["stale_baseline"],
        json!(["shapes list_without_completeness GET /bare-vec bare_vec"]),
        "{report:#}"
    );
    let said = String::from_utf8_lossy(&stale.stderr);
    assert!(
        said.contains(
            "warning: the baseline entry `shapes list_without_completeness GET /bare-vec bare_vec` matches no finding"
        ),
        "{said}"
    );
    assert!(run(&copy, &["--deny", "stale", "-q"]).status.code() == Some(2), "--deny stale without a baseline");
    let denied = run(&copy, &["--baseline", baseline_arg, "--deny", "stale", "-q"]);
    assert_eq!(denied.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&denied.stderr)
            .contains("  stale baseline entry `shapes list_without_completeness GET /bare-vec bare_vec`")
    );
    run(&copy, &["--baseline", baseline_arg, "--write-baseline", "-q"]);
    assert_eq!(
        run(&copy, &["--baseline", baseline_arg, "--deny", "stale", "-q"]).status.code(),
        Some(0),
        "written again"
    );

    // A baseline written from an audit that found no route would forget every known finding:
    // refused, the file unchanged.
    let before = fs::read(&baseline).unwrap();
    let empty = scratch("baseline-nothing");
    write_under(&empty, "Cargo.toml", "[package]\nname = \"nothing\"\nversion = \"0.1.0\"\nedition = \"2024\"\n");
    write_under(&empty, "src/lib.rs", "pub fn helper() {}\n");
    let nothing = run(&empty, &["--baseline", baseline_arg, "--write-baseline", "-q"]);
    assert_eq!(nothing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&nothing.stderr).contains("--write-baseline writes no baseline of nothing"));
    assert_eq!(fs::read(&baseline).unwrap(), before, "the baseline is unchanged");

    let missing = run(&copy, &["--baseline", "/nonexistent/baseline.json", "-q"]);
    assert_eq!(missing.status.code(), Some(2));
    let said = String::from_utf8_lossy(&missing.stderr);
    assert!(said.starts_with("error: --baseline /nonexistent/baseline.json: "), "the flag is named: {said}");
}

/// A baseline entry of a route `--exclude` leaves out is not stale: the route is still there,
/// and writing the baseline again on that advice would drop it.
#[test]
fn a_baseline_entry_left_out_by_exclude_is_not_stale() {
    let dir = binary_crate(
        "baseline-left-out",
        "leftout",
        "mod generated;\n\
         async fn listed() -> axum::Json<Vec<u8>> { axum::Json(vec![]) }\n\
         fn main() { serve(axum::Router::new().route(\"/listed\", axum::routing::get(listed)).merge(generated::routes())); }\n",
    );
    write_under(
        &dir,
        "src/generated.rs",
        "async fn made() -> axum::Json<Vec<u8>> { axum::Json(vec![]) }\n\
         pub fn routes() -> axum::Router { axum::Router::new().route(\"/made\", axum::routing::get(made)) }\n",
    );
    let baseline = dir.join("baseline.json");
    let baseline = baseline.to_str().unwrap();
    assert_eq!(run(&dir, &["--baseline", baseline, "--write-baseline", "-q"]).status.code(), Some(0));
    let out = run(&dir, &["--baseline", baseline, "--deny", "stale", "--exclude", "src/generated.rs", "-q"]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(!said.contains("matches no finding"), "{said}");
}

/// Writes the package `name` under `dir/services`, serving `GET /orders` from `list_orders`.
fn service(dir: &Path, name: &str) {
    let root = dir.join("services").join(name);
    fs::create_dir_all(root.join("src")).unwrap();
    fs::write(
        root.join("Cargo.toml"),
        format!("[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2024\"\n"),
    )
    .unwrap();
    fs::write(
        root.join("src/main.rs"),
        "async fn list_orders() -> axum::Json<Vec<u8>> { todo!() }\n\
         fn main() { let _app: axum::Router = axum::Router::new().route(\"/orders\", axum::routing::get(list_orders)); }\n",
    )
    .unwrap();
}

#[test]
fn a_baseline_entry_of_one_service_does_not_pass_the_same_route_of_another() {
    let dir = scratch("baseline-services");
    fs::write(dir.join("Cargo.toml"), "[workspace]\nmembers = [\"services/*\"]\nresolver = \"3\"\n").unwrap();
    service(&dir, "orders");
    let baseline = dir.join("baseline.json");
    let baseline_arg = baseline.to_str().unwrap();
    let written = run(&dir, &["--baseline", baseline_arg, "--write-baseline", "--deny", "list", "-q"]);
    assert_eq!(written.status.code(), Some(0));
    let keys = fs::read_to_string(&baseline).unwrap();
    assert!(keys.contains("\"orders list_without_completeness GET /orders list_orders\""), "{keys}");
    // Another service with the same route and handler: new, so it fails.
    service(&dir, "billing");
    let out = run(&dir, &["--baseline", baseline_arg, "--deny", "list", "--format", "json", "-q"]);
    assert_eq!(out.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let fresh: Vec<&Value> =
        report["findings"].as_array().unwrap().iter().filter(|f| f["baselined"] == false).collect();
    assert_eq!(fresh.len(), 1, "{report:#}");
    assert_eq!(fresh[0]["crate"], "billing");

    // A baseline of version 1 has no package in its keys: its entry matches while one service
    // has the route, and neither once two have it (with a warning).
    fs::write(&baseline, "{\"version\": 1, \"findings\": [\"list_without_completeness GET /orders list_orders\"]}\n")
        .unwrap();
    let both = run(&dir, &["--baseline", baseline_arg, "--deny", "list", "-q"]);
    assert_eq!(both.status.code(), Some(1));
    let said = String::from_utf8_lossy(&both.stderr);
    assert!(said.contains("names no package, and several packages have that route"), "{said}");
    fs::remove_dir_all(dir.join("services/billing")).unwrap();
    assert_eq!(run(&dir, &["--baseline", baseline_arg, "--deny", "list", "-q"]).status.code(), Some(0));
}

#[test]
fn sarif_fingerprints_tell_the_same_route_of_two_packages_apart() {
    let dir = scratch("sarif-services");
    fs::write(dir.join("Cargo.toml"), "[workspace]\nmembers = [\"services/*\"]\nresolver = \"3\"\n").unwrap();
    service(&dir, "orders");
    service(&dir, "billing");
    let log: Value = serde_json::from_slice(&run(&dir, &["--format", "sarif", "-q"]).stdout).unwrap();
    let mut fingerprints: Vec<&str> = log["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["partialFingerprints"]["route/v2"].as_str().unwrap())
        .collect();
    fingerprints.sort();
    // The baseline's keys, package first.
    assert_eq!(
        fingerprints,
        [
            "billing list_without_completeness GET /orders list_orders",
            "orders list_without_completeness GET /orders list_orders"
        ],
        "{log:#}"
    );
}

/// A `routes!` handler whose `#[utoipa::path(..)]` names a constant is placed as
/// `.route(CONST, ..)` is; one the audit finds but cannot place keeps its verdict (a list fails
/// `--deny list`); only one it does not find is unknown, with a fix that says what to audit.
#[test]
fn a_routes_handler_is_placed_by_constants_and_classified_when_its_route_is_not_read() {
    let dir = binary_crate(
        "utoipa-constants",
        "documented",
        "use axum::Json;\nuse utoipa_axum::router::OpenApiRouter;\nuse utoipa_axum::routes;\n\
         const ORDERS: &str = \"/orders\";\nconst API: &str = \"/api\";\n\
         #[utoipa::path(get, path = ORDERS)]\nasync fn list_orders() -> Json<Vec<u32>> { Json(vec![]) }\n\
         #[utoipa::path(get, path = \"/items\", context_path = API)]\nasync fn list_items() -> Json<Vec<u32>> { Json(vec![]) }\n\
         #[utoipa::path(get, path = elsewhere::PATH)]\nasync fn list_elsewhere() -> Json<Vec<u32>> { Json(vec![]) }\n\
         #[utoipa::path(path = \"/any\")]\nasync fn any_method() -> Json<Vec<u32>> { Json(vec![]) }\n\
         async fn undocumented() -> Json<Vec<u32>> { Json(vec![]) }\n\
         fn main() {\n    let _app: OpenApiRouter = OpenApiRouter::new()\n        .routes(routes!(list_orders))\n        \
         .routes(routes!(list_items))\n        .routes(routes!(list_elsewhere, any_method, undocumented, other_crate::list));\n}\n",
    );
    let report = json(&dir, &["-q"]);
    let found: Vec<(String, String, String)> = verdicts(&report);
    let list = "list_without_completeness".to_owned();
    let expected = [
        ("*".to_owned(), "/*".to_owned(), list.clone()),
        ("*".to_owned(), "/*".to_owned(), "unknown".to_owned()),
        ("*".to_owned(), "/any".to_owned(), list.clone()),
        ("GET".to_owned(), "/api/items".to_owned(), list.clone()),
        ("GET".to_owned(), "/orders".to_owned(), list.clone()),
        ("GET".to_owned(), "<elsewhere::PATH>".to_owned(), list.clone()),
    ];
    let mut sorted = found.clone();
    sorted.sort();
    assert_eq!(sorted, expected, "{report:#}");
    let by_handler =
        |name: &str| report["findings"].as_array().unwrap().iter().find(|f| f["handler"] == name).cloned().unwrap();
    for name in ["list_elsewhere", "any_method", "undocumented"] {
        let finding = by_handler(name);
        let why = finding["why"].as_str().unwrap();
        assert!(why.starts_with("returns `Json<Vec<u32>>`, a list"), "{finding}");
        assert!(why.contains("its route is not read"), "{finding}");
    }
    assert!(!by_handler("list_orders")["why"].as_str().unwrap().contains("not read"));
    let unfound = by_handler("other_crate::list");
    assert_eq!(unfound["why"], "`other_crate::list` is not a function of the audited sources", "{unfound}");
    let fix = unfound["fix"].as_str().unwrap();
    assert!(fix.starts_with("audit the crate that defines it too"), "{unfound}");
    assert!(!fix.contains("name the response type"), "{unfound}");
    assert_eq!(run(&dir, &["--deny", "list", "-q"]).status.code(), Some(1));
}

/// utoipa-axum's `OpenApiRouter::routes` handed the tuple the README recommends (the document
/// of `routes!(list)` and a method router of the handler), a `routes!(..)` bound to a local or
/// returned by a function: each handler at the path of its `#[utoipa::path]`, at the method its
/// method router gives it. Routes the audit cannot read are unknown, under their `nest`
/// prefix, never dropped.
#[test]
fn utoipa_routes_handed_as_a_tuple_or_a_binding_are_audited_and_unread_ones_are_unknown() {
    let report = json(&fixture("utoipa_routes"), &["-q"]);
    let mut found = verdicts(&report);
    found.sort();
    let verdict = |method: &str, path: &str, verdict: &str| (method.to_owned(), path.to_owned(), verdict.to_owned());
    let list = "list_without_completeness";
    assert_eq!(
        found,
        [
            verdict("*", "/plugins/*", "unknown"),
            verdict("GET", "/*", list),
            verdict("GET", "/bound", list),
            verdict("GET", "/checked", "reports_completeness"),
            verdict("GET", "/health", "not_a_list"),
            verdict("GET", "/items", list),
            verdict("GET", "/returned", list),
        ],
        "{report:#}"
    );
    let by_handler =
        |name: &str| report["findings"].as_array().unwrap().iter().find(|f| f["handler"] == name).cloned().unwrap();
    let unplaced = by_handler("undocumented");
    assert!(unplaced["why"].as_str().unwrap().contains("its route is not read"), "{unplaced}");
    let unread = by_handler("plugins::routes()");
    assert!(unread["why"].as_str().unwrap().contains("handed to `.routes(..)`"), "{unread}");
    assert_eq!(run(&fixture("utoipa_routes"), &["--deny", "unknown", "-q"]).status.code(), Some(1));
}

/// The finding of the handler `name` in `report`.
fn finding_of(report: &Value, name: &str) -> Value {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["handler"] == name)
        .cloned()
        .unwrap_or_else(|| panic!("no finding for `{name}` in {report:#}"))
}

/// A `routes!(..)` a function of the audited sources returns, handed to `.routes(..)` of a
/// router the audit cannot read (another crate's), keeps its handlers' verdicts at their
/// attributes' paths: merged into a router the audit reads, they are not lost in one unknown
/// route.
#[test]
fn routes_a_function_returns_are_kept_whatever_router_they_are_handed_to() {
    let report = json(&fixture("utoipa_handed"), &["-q"]);
    assert_eq!(verdict_of(&report, "GET", "/b"), "list_without_completeness", "{report:#}");
    assert_eq!(finding_of(&report, "list_b")["path"], "/b", "{report:#}");
    let unknown: Vec<&Value> =
        report["findings"].as_array().unwrap().iter().filter(|f| f["verdict"] == "unknown").collect();
    assert_eq!(unknown, Vec::<&Value>::new(), "{report:#}");
}

/// utoipa-axum serves every handler of a method router handed beside a document at every path
/// of that document, which the audit does not read. Handlers whose attributes name different
/// paths, or a handler whose attribute names another method than the router gives it, keep
/// their verdicts with a note that their route is not read; handlers that agree with their
/// attributes are placed without one.
#[test]
fn a_method_router_that_disagrees_with_its_handlers_attributes_is_not_read() {
    let report = json(&fixture("utoipa_handed"), &["-q"]);
    let served = "the method router's handlers are served at the paths of the document handed with them to \
                  `.routes(..)`, which the audit does not read";
    for (name, method, path, disagreement) in [
        ("list_c", "GET", "/c", "their `#[utoipa::path(..)]` attributes name different paths"),
        ("list_d", "POST", "/d", "their `#[utoipa::path(..)]` attributes name different paths"),
        ("list_e", "GET", "/e", "the `#[utoipa::path(..)]` attribute of `list_e` names a method other than `GET`"),
    ] {
        let finding = finding_of(&report, name);
        assert_eq!((&finding["method"], &finding["path"]), (&json!(method), &json!(path)), "{finding}");
        assert_eq!(finding["verdict"], "list_without_completeness", "{finding}");
        let why = finding["why"].as_str().unwrap();
        assert!(why.contains(&format!("its route is not read: {served}, and {disagreement}")), "{finding}");
    }
    for name in ["list_g", "create_g", "list_a"] {
        let finding = finding_of(&report, name);
        assert!(!finding["why"].as_str().unwrap().contains("not read"), "{finding}");
    }
}

/// `let (schemas, paths, methods) = routes!(list);` then `.routes((schemas, paths, methods))`:
/// the method router is the one of `list`, audited at its attribute's method and path, not an
/// unknown route.
#[test]
fn a_method_router_destructured_from_routes_is_audited_at_its_handlers_attributes() {
    let report = json(&fixture("utoipa_handed"), &["-q"]);
    assert_eq!(verdict_of(&report, "GET", "/a"), "list_without_completeness", "{report:#}");
    let finding = finding_of(&report, "list_a");
    assert_eq!(finding["path"], "/a", "{finding}");
    let handed =
        report["findings"].as_array().unwrap().iter().find(|f| f["handler"] == "(a_schemas, a_paths, a_methods)");
    assert_eq!(handed, None, "{report:#}");
}

/// A handler with no `#[utoipa::path(..)]`, routed beside a document, is told that the audit
/// reads a document's paths only from that attribute, not that it cannot read one it has.
#[test]
fn a_handler_without_a_utoipa_path_attribute_is_told_it_has_none() {
    let report = json(&fixture("utoipa_handed"), &["-q"]);
    let finding = finding_of(&report, "undocumented");
    assert_eq!((&finding["method"], &finding["path"]), (&json!("GET"), &json!("/*")), "{finding}");
    assert_eq!(finding["verdict"], "list_without_completeness", "{finding}");
    assert!(
        finding["why"].as_str().unwrap().ends_with(
            "its route is not read: routed by `.routes(..)` at the path of its OpenAPI document, which the audit \
             reads only from a handler's `#[utoipa::path(..)]` attribute"
        ),
        "{finding}"
    );
}

/// `#[utoipa::path(..)]` arguments that are types (`request_body = PageParams<String>`,
/// `Vec<Item>`, `HashMap<String, Vec<Item>>`) or other expressions do not hide the method and
/// path beside them, before or after them.
#[test]
fn utoipa_path_arguments_that_are_types_do_not_hide_the_method_and_path() {
    let report = json(&fixture("utoipa_arguments"), &["-q"]);
    let mut found = verdicts(&report);
    found.sort();
    let list = |method: &str, path: &str| (method.to_owned(), path.to_owned(), "list_without_completeness".to_owned());
    assert_eq!(
        found,
        [
            list("GET", "/items/all"),
            list("HEAD", "/items/all"),
            list("POST", "/items/bulk"),
            list("POST", "/items/optional"),
            list("POST", "/items/search"),
            list("POST", "/items/sized"),
            list("POST", "/v1/items/grouped"),
        ],
        "{report:#}"
    );
    let notes: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["why"].as_str().unwrap().contains("not read"))
        .collect();
    assert_eq!(notes, Vec::<&Value>::new(), "every route is read");
}

/// A member unknown one level down (a struct of the sources whose own member can hold any JSON,
/// the payload of a generic wrapper that is another crate's type) leaves its owner unknown, with
/// the member's path; a timestamp of another crate is still no list, and a list stays a list.
#[test]
fn a_member_unknown_one_level_down_leaves_its_owner_unknown() {
    let report = json(&fixture("unseen_members"), &["-q"]);
    let expected = [
        ("/direct", "unknown"),
        ("/in-generic", "unknown"),
        ("/task", "unknown"),
        ("/wrapped", "unknown"),
        ("/outer", "unknown"),
        ("/aliased", "unknown"),
        ("/wrapped-twice", "unknown"),
        ("/stamped", "not_a_list"),
        ("/listed", "list_without_completeness"),
    ];
    for (path, verdict) in expected {
        assert_eq!(verdict_of(&report, "GET", path), verdict, "{path}: {report:#}");
    }
    assert_eq!(report["findings"].as_array().unwrap().len(), expected.len(), "{report:#}");
    let by_path =
        |path: &str| report["findings"].as_array().unwrap().iter().find(|f| f["path"] == path).cloned().unwrap();
    let wrapped = by_path("/wrapped");
    assert!(wrapped["why"].as_str().unwrap().starts_with("the member `data.params` of `Wrap`"), "{wrapped}");
    let twice = by_path("/wrapped-twice");
    assert!(twice["why"].as_str().unwrap().contains("`data.data.inner.params`"), "{twice}");
    // Another crate's type: the fix is to audit that crate.
    let generic = by_path("/in-generic");
    assert!(generic["why"].as_str().unwrap().contains("`ThingPage` is defined outside"), "{generic}");
    assert!(generic["fix"].as_str().unwrap().starts_with("audit the crate that defines the type too"), "{generic}");
}

/// A page with several collections: SCIM's list response (its `schemas` beside its `Resources`),
/// a search page beside its query, a page by its cursor whose strings come first. Each is a list
/// of its items, and the fix names their type; a resource with two collections stays one.
#[test]
fn a_page_with_several_collections_is_a_list_of_its_items() {
    let report = json(&fixture("list_pages"), &["-q"]);
    let expected = [
        ("/scim/Users", "list_without_completeness"),
        ("/search", "list_without_completeness"),
        ("/two", "list_without_completeness"),
        ("/tagged", "list_without_completeness"),
        ("/team", "nested_collection"),
    ];
    for (path, verdict) in expected {
        assert_eq!(verdict_of(&report, "GET", path), verdict, "{path}: {report:#}");
    }
    for path in ["/scim/Users", "/search", "/two", "/tagged"] {
        let finding = report["findings"].as_array().unwrap().iter().find(|f| f["path"] == path).unwrap();
        assert!(finding["fix"].as_str().unwrap().contains("return `Envelope<User>`"), "{finding}");
    }
}

/// An error type with an `into_response` of its own and no `Serialize` answers what that method
/// writes, not its variants (`Schema(Vec<String>)` holds its details); a serialized type, and a
/// generic newtype around its body, are still read by what they hold.
#[test]
fn a_type_with_its_own_into_response_answers_what_that_writes() {
    let report = json(&fixture("own_bodies"), &["-q"]);
    let expected = [
        ("/error-only", "not_a_list"),
        ("/mapped-error", "not_a_list"),
        ("/listing", "list_without_completeness"),
        ("/newtype", "list_without_completeness"),
    ];
    for (path, verdict) in expected {
        assert_eq!(verdict_of(&report, "GET", path), verdict, "{path}: {report:#}");
    }
}

/// A collection reached through a generic wrapper every endpoint shares (`CommonResult<T>`):
/// the fix names the innermost struct whose own member holds it (`CommonPage`,
/// `UserGroups.groups`), or the type given for the wrapper's parameter, and says the wrapper is
/// generic; it never derives on the wrapper or marks its member `bounded`, which would declare
/// every endpoint's lists bounded.
#[test]
fn a_collection_through_a_generic_wrapper_is_fixed_where_it_is_held() {
    let report = json(&fixture("generic_wrappers"), &["-q"]);
    let expected = [
        ("/users/{u}/groups", "nested_collection", "derive `ResultEnvelope` on `UserGroups` and mark `groups` with"),
        ("/users", "list_without_completeness", "derive `ResultEnvelope` on `CommonPage` with an"),
        ("/names", "list_without_completeness", "in place of `Vec<String>` as its `T` here, use a struct of the items"),
        ("/tagged", "nested_collection", "in place of `Vec<String>` as its `T` here, use a struct that derives"),
        ("/twice", "nested_collection", "in place of `CommonPage<String>` as its `T` here"),
        ("/replied", "nested_collection", "derive `ResultEnvelope` on `UserGroups` and mark `groups` with"),
        ("/membership", "nested_collection", "derive `ResultEnvelope` on `UserGroups` and mark `groups` with"),
    ];
    for (path, verdict, fix) in expected {
        let finding = report["findings"].as_array().unwrap().iter().find(|f| f["path"] == path).unwrap();
        assert_eq!(finding["verdict"], verdict, "{finding}");
        let advice = finding["fix"].as_str().unwrap();
        assert!(advice.contains(fix), "{path}: {advice}");
        for wrapper in ["CommonResult", "Tagged", "Reply"] {
            assert!(!advice.contains(&format!("on `{wrapper}`")), "{path}: {advice}");
        }
        for member in ["data", "payload"] {
            assert!(!advice.contains(&format!("mark `{member}`")), "{path}: {advice}");
        }
        // Through a generic wrapper, the advice says so; without one, it does not.
        let generic = path != "/membership";
        assert_eq!(advice.contains("it is generic"), generic, "{path}: {advice}");
    }
    assert_eq!(report["findings"].as_array().unwrap().len(), expected.len(), "{report:#}");
}

/// utoipa's `#[aliases(JobCollection = NonPaginatedCollection<Job>)]` declares type aliases in
/// the audited sources: a handler returning one gets the verdict of the type it stands for. A
/// type the sources do not define and no path places in another crate (a macro's) is "not
/// found", with a fix that can be acted on, not "defined outside the audited sources".
#[test]
fn a_type_a_macro_generates_is_read_or_reported_as_not_found() {
    let report = json(&fixture("macro_types"), &["-q"]);
    let expected = [
        ("/jobs", "list_without_completeness"),
        ("/tags", "list_without_completeness"),
        ("/job", "not_a_list"),
        ("/generated", "unknown"),
        ("/foreign", "unknown"),
    ];
    for (path, verdict) in expected {
        assert_eq!(verdict_of(&report, "GET", path), verdict, "{path}: {report:#}");
    }
    let by_path =
        |path: &str| report["findings"].as_array().unwrap().iter().find(|f| f["path"] == path).cloned().unwrap();
    let jobs = by_path("/jobs");
    assert!(jobs["fix"].as_str().unwrap().contains("on `NonPaginatedCollection`"), "{jobs}");
    assert!(jobs["fix"].as_str().unwrap().contains("`Envelope<Job>`"), "{jobs}");
    let generated = by_path("/generated");
    assert_eq!(
        generated["why"],
        "`Generated` is not found in the audited sources; it may be generated by a macro (e.g. utoipa's \
         `#[aliases(..)]`) or come from another crate"
    );
    assert!(generated["fix"].as_str().unwrap().starts_with("if a macro generates the type"), "{generated}");
    // Imported from another crate: that crate is the one to audit.
    let foreign = by_path("/foreign");
    assert!(foreign["why"].as_str().unwrap().ends_with("is defined outside the audited sources"), "{foreign}");
    assert!(foreign["fix"].as_str().unwrap().starts_with("audit the crate that defines the type too"), "{foreign}");
}

/// The same route registered in both branches of an `if` (`/metrics` served either way) is one
/// route, listed once: two findings would share one baseline key.
#[test]
fn a_route_registered_in_both_branches_is_listed_once() {
    let report = json(&fixture("router_flows"), &["-q"]);
    let metrics: Vec<&Value> =
        report["findings"].as_array().unwrap().iter().filter(|f| f["path"] == "/metrics").collect();
    assert_eq!(metrics.len(), 1, "{metrics:#?}");
    assert_eq!(verdict_of(&report, "GET", "/metrics/all"), "list_without_completeness");
}

/// Routers merged through `fold` over an array or a `vec!`, or in a `for` loop over a `Vec`
/// they were pushed to, are served under the prefix of the `nest` they go to, never at their
/// paths without it.
#[test]
fn routers_merged_by_fold_or_a_loop_are_served_under_their_prefix() {
    let report = json(&fixture("router_flows"), &["-q"]);
    let mut listed: Vec<String> = verdicts(&report)
        .into_iter()
        .filter(|(_, path, _)| path.ends_with("/users") || path.ends_with("/orders") || path.starts_with("/api"))
        .map(|(method, path, verdict)| format!("{method} {path} {verdict}"))
        .collect();
    listed.sort();
    let list = "list_without_completeness";
    let expected: Vec<String> = ["/api", "/api2", "/api3"]
        .iter()
        .flat_map(|prefix| [format!("GET {prefix}/orders {list}"), format!("GET {prefix}/users {list}")])
        .collect();
    assert_eq!(listed, expected, "{report:#}");
}

/// A handler a `macro_rules!` defines, or a loop's variable, is named for what it is, with a fix
/// that can be acted on; a path into another crate is still another crate's function.
#[test]
fn a_handler_a_macro_defines_or_a_variable_holds_is_named_as_such() {
    let report = json(&fixture("router_flows"), &["-q"]);
    let by_path =
        |path: &str| report["findings"].as_array().unwrap().iter().find(|f| f["path"] == path).cloned().unwrap();
    for (path, handler) in [("/macro-handler", "macro_list"), ("<path>", "handler")] {
        let finding = by_path(path);
        assert_eq!(finding["verdict"], "unknown", "{finding}");
        let why = finding["why"].as_str().unwrap();
        assert!(
            why.starts_with(&format!(
                "`{handler}` is a handler the audit cannot resolve: defined by a macro, or a variable"
            )),
            "{finding}"
        );
        assert!(!finding["fix"].as_str().unwrap().contains("audit the crate"), "{finding}");
    }
    let external = by_path("/external");
    assert!(external["why"].as_str().unwrap().ends_with("is not a function of the audited sources"), "{external}");
    assert!(external["fix"].as_str().unwrap().starts_with("audit the crate that defines it too"), "{external}");
}

/// A member of bytes (`Vec<u8>`, `Option<Box<[u8]>>`) is a blob, not a collection, as a
/// handler's `Vec<u8>` body is; a list of byte strings is still a list.
#[test]
fn a_member_of_bytes_is_no_collection() {
    let report = json(&fixture("own_bodies"), &["-q"]);
    let expected = [("/image", "not_a_list"), ("/session", "not_a_list"), ("/blobs", "list_without_completeness")];
    for (path, verdict) in expected {
        assert_eq!(verdict_of(&report, "GET", path), verdict, "{path}: {report:#}");
    }
}

/// A fallback the audit cannot see through is fixed with `Exempt`, not by registering it with
/// `completeness::routing`, which has no counterpart of `Router::fallback`.
#[test]
fn an_unknown_fallback_is_fixed_with_exempt() {
    let dir = binary_crate(
        "unknown-fallback",
        "fallbacks",
        "use axum::{Json, Router, http::StatusCode, response::{IntoResponse, Response}, routing::get};\n\
         enum AppError { NotFound, Bad(String) }\n\
         impl IntoResponse for AppError {\n    fn into_response(self) -> Response {\n        \
         let (status, message) = match self {\n            \
         AppError::NotFound => (StatusCode::NOT_FOUND, \"not found\".to_owned()),\n            \
         AppError::Bad(m) => (StatusCode::BAD_REQUEST, m),\n        };\n        \
         (status, Json(serde_json::json!({ \"error\": message }))).into_response()\n    }\n}\n\
         async fn fallback() -> AppError { AppError::NotFound }\n\
         async fn health() -> &'static str { \"ok\" }\n\
         fn main() { serve(Router::new().route(\"/health\", get(health)).fallback(fallback)); }\n",
    );
    let report = json(&dir, &["-q"]);
    let fallback = report["findings"].as_array().unwrap().iter().find(|f| f["path"] == "(fallback)").unwrap();
    assert_eq!(fallback["verdict"], "unknown", "{fallback}");
    let fix = fallback["fix"].as_str().unwrap();
    assert!(fix.starts_with("return the fallback's response inside `Exempt::new(.., why)`"), "{fix}");
    assert!(!fix.contains("register the handler"), "{fix}");
}

/// A list answered with an error status (`(StatusCode::UNPROCESSABLE_ENTITY, Json(errors))`) is
/// no list a client reads as the answer; one answered with a success status still is.
#[test]
fn a_list_answered_with_an_error_status_is_not_a_list() {
    let dir = binary_crate(
        "error-status-lists",
        "statuses",
        "use axum::{Json, Router, http::StatusCode, response::{IntoResponse, Response}, routing::put};\n\
         #[derive(serde::Serialize)] struct Pet { id: u32 }\n\
         #[derive(serde::Serialize)] struct FieldError { field: String }\n\
         async fn update(Json(body): Json<serde_json::Value>) -> Response {\n    \
         if body.get(\"name\").is_none() {\n        \
         let errors = vec![FieldError { field: \"name\".into() }];\n        \
         return (StatusCode::UNPROCESSABLE_ENTITY, Json(errors)).into_response();\n    }\n    \
         Json(Pet { id: 1 }).into_response()\n}\n\
         async fn created() -> Response {\n    \
         (StatusCode::CREATED, Json(vec![Pet { id: 1 }])).into_response()\n}\n\
         fn main() { serve(Router::new().route(\"/pets/{id}\", put(update)).route(\"/pets\", put(created))); }\n",
    );
    let report = json(&dir, &["-q"]);
    assert_eq!(verdict_of(&report, "PUT", "/pets/{id}"), "not_a_list", "{report:#}");
    assert_eq!(verdict_of(&report, "PUT", "/pets"), "list_without_completeness", "{report:#}");
}

/// A module whose `#[path]` leads back to a file it is in (rustc's circular modules) is skipped
/// with its reason, rather than loaded again until memory runs out; one file named by two
/// modules is read as both, as rustc reads it.
#[test]
fn circular_modules_are_skipped_and_a_file_shared_by_two_modules_is_read_twice() {
    let dir = binary_crate(
        "circular-modules",
        "circular",
        "#[path = \"a.rs\"]\nmod a;\n#[path = \"shared.rs\"]\nmod one;\n#[path = \"shared.rs\"]\nmod two;\n\
         fn main() { serve(axum::Router::new().merge(one::routes()).merge(two::routes()).merge(a::routes())); }\n",
    );
    write_under(&dir, "src/a.rs", "#[path = \"b.rs\"]\nmod b;\npub fn routes() -> axum::Router { b::routes() }\n");
    write_under(
        &dir,
        "src/b.rs",
        "#[path = \"a.rs\"]\nmod back;\n#[path = \"b.rs\"]\nmod again;\n\
         async fn listed() -> axum::Json<Vec<u8>> { axum::Json(vec![]) }\n\
         pub fn routes() -> axum::Router { axum::Router::new().route(\"/b\", axum::routing::get(listed)) }\n",
    );
    write_under(
        &dir,
        "src/shared.rs",
        "async fn shared() -> axum::Json<Vec<u8>> { axum::Json(vec![]) }\n\
         pub fn routes() -> axum::Router { axum::Router::new().route(\"/shared\", axum::routing::get(shared)) }\n",
    );
    let out = run(&dir, &["--format", "json", "--deny", "skipped"]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut skipped: Vec<String> = report["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| format!("{}:{} {}", s["file"].as_str().unwrap(), s["line"], s["error"].as_str().unwrap()))
        .collect();
    skipped.sort();
    assert_eq!(skipped.len(), 2, "{report:#}");
    assert!(
        skipped[0].starts_with("src/b.rs:1 module `back`: its file src/a.rs is a module this one is in"),
        "{skipped:?}"
    );
    assert!(
        skipped[1].starts_with("src/b.rs:3 module `again`: its file src/b.rs is a module this one is in"),
        "{skipped:?}"
    );
    let mut found = verdicts(&report);
    found.sort();
    found.dedup();
    assert_eq!(found, [listed("/b"), listed("/shared")], "{report:#}");
}

/// A router a local closure builds from its argument is followed through the call: what is
/// merged or nested onto its result is served (and unknown where the audit cannot follow it),
/// and a router handed to a parameter the closure drops is still served.
#[test]
fn a_router_built_by_a_local_closure_keeps_what_is_merged_onto_it() {
    let dir = binary_crate(
        "closure-call",
        "closures",
        "use axum::{Json, Router, routing::get};\n\
         async fn health() -> &'static str { \"ok\" }\n\
         async fn list() -> Json<Vec<u32>> { Json(vec![]) }\n\
         fn main() {\n    \
         let add_health = |r: Router| r.route(\"/health\", get(health));\n    \
         let second = |_r: Router, extra: Router| extra;\n    \
         let app = add_health(Router::new()).merge(other_crate::users_router());\n    \
         let api = add_health(Router::new()).nest(\"/api\", other_crate::users_router());\n    \
         let dropped = second(Router::new().route(\"/kept\", get(list)), Router::new());\n    \
         serve(app.merge(api).merge(dropped));\n}\n",
    );
    let report = json(&dir, &["-q"]);
    let mut found = verdicts(&report);
    found.sort();
    let expected: Vec<(String, String, String)> = [
        ("*", "/*", "unknown"),
        ("*", "/api", "unknown"),
        ("GET", "/health", "not_a_list"),
        ("GET", "/kept", "list_without_completeness"),
    ]
    .map(|(m, p, v)| (m.to_owned(), p.to_owned(), v.to_owned()))
    .to_vec();
    assert_eq!(found, expected, "{report:#}");
    let out = run(&dir, &["-q", "--deny", "unknown"]);
    assert_eq!(out.status.code(), Some(1), "the routers merged onto the closure's result are unknown");
}

/// A closure is read as Rust runs it: its arguments are the caller's values (`join(b, a)` binds
/// `a` to the caller's `b`), the names in its body are those it captured where it was written
/// (so one that calls an earlier closure of its own name calls that one, not itself), its own
/// `let`s stay its own, and a router it builds for its caller is served where the caller puts it,
/// not also at its own paths.
#[test]
fn a_closure_is_read_with_its_arguments_and_the_names_it_captured() {
    let cases = [
        (
            "closure-shadowed",
            "let mount = |r: Router| r.route(\"/a\", get(la));\n    \
             let mount = |r: Router| mount(r).route(\"/b\", get(lb));\n    serve(mount(Router::new()));",
            vec!["/a", "/b"],
        ),
        (
            "closure-swapped",
            "let a = Router::new().route(\"/a\", get(la));\n    let b = Router::new().route(\"/b\", get(lb));\n    \
             let join = |a: Router, b: Router| Router::new().nest(\"/x\", a).nest(\"/y\", b);\n    serve(join(b, a));",
            vec!["/x/b", "/y/a"],
        ),
        (
            "closure-nested",
            "let mount = |r: Router| r.route(\"/a\", get(la));\n    \
             serve(Router::new().nest(\"/api\", mount(Router::new())));",
            vec!["/api/a"],
        ),
        (
            "closure-own-let",
            "let app = Router::new().route(\"/a\", get(la));\n    \
             let mount = |r: Router| { let app = r.route(\"/b\", get(lb)); app };\n    \
             let api = mount(Router::new());\n    serve(Router::new().nest(\"/v1\", app).merge(api));",
            vec!["/b", "/v1/a"],
        ),
        (
            "closure-captured",
            "let api = Router::new().route(\"/a\", get(la));\n    \
             let with_api = move |r: Router| r.merge(api);\n    \
             serve(Router::new().nest(\"/v2\", with_api(Router::new().route(\"/b\", get(lb)))));",
            vec!["/v2/a", "/v2/b"],
        ),
        (
            "closure-handed-on",
            "spawn_later(|| Router::new().route(\"/a\", get(la)));\n    serve(Router::new());",
            vec!["/a"],
        ),
    ];
    for (name, body, expected) in cases {
        let main = format!(
            "use axum::{{Json, Router, routing::get}};\n\
             async fn la() -> Json<Vec<u32>> {{ Json(vec![]) }}\n\
             async fn lb() -> Json<Vec<u32>> {{ Json(vec![]) }}\n\
             fn main() {{\n    {body}\n}}\n"
        );
        let dir = binary_crate(name, "closures", &main);
        let report = json(&dir, &["-q"]);
        let mut found: Vec<String> = verdicts(&report).into_iter().map(|(_, path, _)| path).collect();
        found.sort();
        assert_eq!(found, expected, "{name}:\n{main}\n{report:#}");
    }
}

/// A statement or block only tests compile is not audited; one under any other `cfg` is.
#[test]
fn statements_only_tests_compile_are_not_audited() {
    let dir = binary_crate(
        "cfg-test-statements",
        "gated",
        "use axum::{Json, Router, routing::get};\n\
         async fn fixture() -> Json<Vec<u32>> { Json(vec![]) }\n\
         async fn served() -> Json<Vec<u32>> { Json(vec![]) }\n\
         fn app() -> Router {\n    let r: Router = Router::new();\n    \
         #[cfg(test)]\n    let r = r.route(\"/test-only\", get(fixture));\n    \
         let mut r = r;\n    \
         #[cfg(test)]\n    {\n        r = r.route(\"/test-block\", get(fixture));\n    }\n    \
         #[cfg(test)]\n    r = r.route(\"/test-expression\", get(fixture));\n    \
         #[cfg(all(test, feature = \"slow\"))]\n    r = r.route(\"/test-all\", get(fixture));\n    \
         #[cfg(not(test))]\n    let r = r.route(\"/not-test\", get(served));\n    \
         #[cfg(feature = \"extra\")]\n    let r = r.route(\"/feature\", get(served));\n    \
         r\n}\n\
         fn main() { let _app = app(); }\n",
    );
    let report = json(&dir, &["-q"]);
    let mut found = verdicts(&report);
    found.sort();
    assert_eq!(found, [listed("/feature"), listed("/not-test")], "{report:#}");
}

/// A path the audit does not evaluate is its expression in angle brackets, not axum's
/// `{param}` syntax; a baseline records it and matches it again.
#[test]
fn unread_paths_are_marked_apart_from_path_parameters_and_baselined_as_printed() {
    let dir = binary_crate(
        "unread-paths",
        "marked",
        "use axum::{Json, Router, routing::get};\n\
         async fn list() -> Json<Vec<u32>> { Json(vec![]) }\n\
         const LISTS: [&str; 2] = [\"/a\", \"/b\"];\n\
         struct Api { prefix: &'static str }\n\
         impl Api {\n    fn router(&self) -> Router { Router::new().nest(self.prefix, Router::new().route(\"/users\", get(list))) }\n}\n\
         macro_rules! mount { ($r:expr, $h:ident) => { $r.route(\"x\", get($h)) }; }\n\
         fn mounted() -> Router { mount!(Router::new(), list) }\n\
         fn app() -> Router {\n    let mut r = Router::new();\n    for p in LISTS {\n        r = r.route(p, get(list));\n    }\n    \
         r.route(\"/{id}\", get(list))\n}\n\
         fn main() { let _app = app(); }\n",
    );
    let report = json(&dir, &["-q"]);
    let mut found = verdicts(&report);
    found.sort();
    let list = "list_without_completeness".to_owned();
    assert_eq!(
        found,
        [
            ("*".to_owned(), "<mount!>".to_owned(), "unknown".to_owned()),
            ("GET".to_owned(), "/{id}".to_owned(), list.clone()),
            ("GET".to_owned(), "<p>".to_owned(), list.clone()),
            ("GET".to_owned(), "<self.prefix>/users".to_owned(), list),
        ],
        "{report:#}"
    );
    let by_macro = report["findings"].as_array().unwrap().iter().find(|f| f["path"] == "<mount!>").unwrap();
    assert_eq!(by_macro["fix"], "register its routes without the macro, or check what it registers", "{by_macro}");

    let baseline = dir.join("baseline.json");
    let baseline_arg = baseline.to_str().unwrap();
    let written = run(&dir, &["--baseline", baseline_arg, "--write-baseline", "-q"]);
    assert_eq!(written.status.code(), Some(0), "{written:?}");
    let keys = fs::read_to_string(&baseline).unwrap();
    assert!(keys.contains("\"marked list_without_completeness GET <p> list\""), "{keys}");
    assert!(keys.contains("\"marked list_without_completeness GET <self.prefix>/users list\""), "{keys}");
    let gated = run(&dir, &["--baseline", baseline_arg, "--deny", "list", "--deny", "unknown", "-q"]);
    assert_eq!(gated.status.code(), Some(0), "{gated:?}");
}

/// `mod r#type;` is the module `type`, in `type.rs`: its routes are audited, not its file skipped.
#[test]
fn a_module_with_a_raw_name_is_read_from_its_file() {
    let dir = scratch("raw-module");
    fs::create_dir_all(dir.join("src")).unwrap();
    fs::write(dir.join("Cargo.toml"), "[package]\nname = \"raw\"\nversion = \"0.1.0\"\nedition = \"2024\"\n").unwrap();
    fs::write(dir.join("src/main.rs"), "mod r#type;\nfn main() { let _app: axum::Router = r#type::router(); }\n")
        .unwrap();
    fs::write(
        dir.join("src/type.rs"),
        "async fn r#match() -> axum::Json<Vec<u8>> { todo!() }\n\
         pub fn router() -> axum::Router { axum::Router::new().route(\"/types\", axum::routing::get(r#match)) }\n",
    )
    .unwrap();
    let report = json(&dir, &["-q"]);
    assert_eq!(report["skipped"], json!([]), "{report:#}");
    assert_eq!(verdicts(&report), [("GET".to_owned(), "/types".to_owned(), "list_without_completeness".to_owned())]);
}

/// Sources audited without a manifest belong to no package, whatever their path looks like: a
/// file at `tools/bin/report.rs` is not of a package `tools` (a baseline key carries the package).
#[test]
fn a_loose_file_is_of_no_package_whatever_its_path() {
    let dir = scratch("loose-package");
    fs::create_dir_all(dir.join("tools/bin")).unwrap();
    fs::write(
        dir.join("tools/bin/report.rs"),
        "async fn list_orders() -> axum::Json<Vec<u8>> { todo!() }\n\
         fn main() { let _app: axum::Router = axum::Router::new().route(\"/orders\", axum::routing::get(list_orders)); }\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_cargo-completeness"))
        .args(["completeness", "audit", "tools/bin/report.rs", "--format", "json", "-q"])
        .current_dir(&*dir)
        .output()
        .expect("the audit binary runs");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let findings = report["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{report:#}");
    assert_eq!(findings[0]["path"], "/orders");
    assert_eq!(findings[0]["crate"], "", "{report:#}");
}

#[test]
fn this_repository_s_examples_audit_clean_except_the_legacy_one() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let out = run(root, &["--deny", "list", "--exclude", "examples/legacy_inventory", "--format", "json", "-q"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{report:#}");
    assert!(report["findings"].as_array().unwrap().len() >= 10, "the service example's routes are found: {report:#}");
    let legacy = run(&root.join("examples/legacy_inventory"), &["--deny", "list", "-q"]);
    assert_eq!(legacy.status.code(), Some(1), "the un-migrated example is the deliberate exception");
}

#[test]
fn workspace_members_named_by_a_pattern_are_audited_and_one_that_names_nothing_is_an_error() {
    let dir = scratch("member-patterns");
    for service in ["svc-users", "svc-orders", "other"] {
        fs::create_dir_all(dir.join("services").join(service).join("src")).unwrap();
        fs::write(
            dir.join("services").join(service).join("Cargo.toml"),
            format!("[package]\nname = \"{service}\"\nversion = \"0.1.0\"\nedition = \"2024\"\n"),
        )
        .unwrap();
        fs::write(
            dir.join("services").join(service).join("src/main.rs"),
            format!(
                "async fn list() -> axum::Json<Vec<u8>> {{ todo!() }}\n\
                 fn main() {{ let _app: axum::Router = axum::Router::new().route(\"/{service}\", axum::routing::get(list)); }}\n"
            ),
        )
        .unwrap();
    }
    let manifest = |members: &str| {
        fs::write(dir.join("Cargo.toml"), format!("[workspace]\nmembers = [{members}]\nresolver = \"3\"\n")).unwrap()
    };
    manifest("\"services/svc-*\"");
    let report = json(&dir, &[]);
    let mut paths: Vec<String> = verdicts(&report).into_iter().map(|(_, path, _)| path).collect();
    paths.sort();
    assert_eq!(paths, ["/svc-orders", "/svc-users"], "{report:#}");
    let cases = [
        ("\"services/none-*\"", "names no crate"),
        ("\"serv*/svc-users\"", "uses a pattern the audit does not expand"),
        ("\"services/[s]vc-users\"", "uses a pattern the audit does not expand"),
        ("\"services/missing\"", "names no crate"),
    ];
    for (members, why) in cases {
        manifest(members);
        let out = run(&dir, &["-q"]);
        assert_eq!(out.status.code(), Some(2), "members = [{members}]: an audit that leaves a member out is no pass");
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(said.contains("workspace member") && said.contains(why), "members = [{members}]: {said}");
    }
}

#[test]
fn a_long_chain_and_a_deep_expression_are_audited_not_a_stack_overflow() {
    let dir = scratch("deep");
    let routes: String = (0..1200).map(|i| format!("\n        .route(\"/r{i}\", get(list))")).collect();
    let deep = format!("{}1{}", "(".repeat(200), ")".repeat(200));
    fs::write(
        dir.join("main.rs"),
        format!(
            "use axum::{{Json, Router, routing::get}};\nasync fn list() -> Json<Vec<u8>> {{ Json(vec![]) }}\n\
             const DEEP: u32 = {deep};\nfn main() {{ let _app: Router = Router::new(){routes}; }}\n"
        ),
    )
    .unwrap();
    let out = run(&dir, &["--format", "json", "-q"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["findings"].as_array().unwrap().len(), 1200);
}

/// A member that depends on another under a name of its own (`common = { package = "acme-common" }`)
/// reaches that member's types and handlers by that name: its list wrapper named `Envelope` is a
/// list without completeness, not the framework's type.
#[test]
fn a_workspace_library_renamed_by_a_dependent_is_followed_by_its_new_name() {
    let dir = scratch("renamed");
    let write = |path: &str, text: &str| write_under(&dir, path, text);
    write("Cargo.toml", "[workspace]\nmembers = [\"common\", \"server\"]\n");
    write("common/Cargo.toml", "[package]\nname = \"acme-common\"\nversion = \"0.1.0\"\n");
    write(
        "common/src/lib.rs",
        "#[derive(serde::Serialize)]\npub struct Envelope<T> { pub data: Vec<T>, pub next: Option<String> }\n\
         pub async fn shared() -> axum::Json<Vec<u32>> { axum::Json(vec![]) }\n",
    );
    write(
        "server/Cargo.toml",
        "[package]\nname = \"server\"\nversion = \"0.1.0\"\n\n[dependencies]\n\
         common = { package = \"acme-common\", path = \"../common\" }\n",
    );
    write(
        "server/src/main.rs",
        "use axum::{Json, Router, routing::get};\nuse common::Envelope;\n\
         async fn wrapped() -> Json<Envelope<u32>> { todo!() }\n\
         fn main() { let _app: Router = Router::new().route(\"/wrapped\", get(wrapped)).route(\"/shared\", get(common::shared)); }\n",
    );
    let report = json(&dir, &[]);
    assert_eq!(verdict_of(&report, "GET", "/wrapped"), "list_without_completeness", "{report:#}");
    assert_eq!(verdict_of(&report, "GET", "/shared"), "list_without_completeness", "{report:#}");
}

/// A path dependency under the workspace's directory is a member, as cargo makes it one, listed
/// or not: the router it builds is audited. One outside the directory is not.
#[test]
fn a_path_dependency_under_the_workspace_is_audited_as_a_member() {
    let dir = scratch("implicit-member");
    let write = |path: &str, text: &str| write_under(&dir, path, text);
    write("Cargo.toml", "[workspace]\nmembers = [\"crates/api\"]\nresolver = \"3\"\n");
    write(
        "crates/api/Cargo.toml",
        "[package]\nname = \"api\"\nversion = \"0.1.0\"\n\n[dependencies]\nsvc-common = { path = \"../svc-common\" }\n",
    );
    write(
        "crates/api/src/main.rs",
        "#[tokio::main]\nasync fn main() { let app = svc_common::app(); serve(app).await; }\n",
    );
    // A crate outside the workspace's directory, which svc-common merges a router of.
    let outside = scratch("implicit-member-outside");
    write_under(&outside, "Cargo.toml", "[package]\nname = \"shared\"\nversion = \"0.1.0\"\n");
    write_under(
        &outside,
        "src/lib.rs",
        "use axum::{Json, Router, routing::get};\nasync fn more() -> Json<Vec<u32>> { Json(vec![]) }\n\
         pub fn extra() -> Router { Router::new().route(\"/outside\", get(more)) }\n",
    );
    write(
        "crates/svc-common/Cargo.toml",
        &format!(
            "[package]\nname = \"svc-common\"\nversion = \"0.1.0\"\n\n[dependencies]\nshared = {{ path = {:?} }}\n",
            outside.display().to_string()
        ),
    );
    write(
        "crates/svc-common/src/lib.rs",
        "use axum::{Json, Router, routing::get};\nasync fn users() -> Json<Vec<u32>> { Json(vec![]) }\n\
         pub fn app() -> Router { Router::new().route(\"/users\", get(users)).merge(shared::extra()) }\n",
    );
    let report = json(&dir, &[]);
    assert_eq!(verdict_of(&report, "GET", "/users"), "list_without_completeness", "{report:#}");
    let paths: Vec<String> = verdicts(&report).into_iter().map(|(_, path, _)| path).collect();
    assert!(!paths.contains(&"/outside".to_owned()), "a crate outside the workspace is not audited: {paths:?}");
    assert_eq!(run(&dir, &["--deny", "list", "-q"]).status.code(), Some(1));
}

/// A file nested or chained deeper than the audit reads (generated code) is skipped with its
/// reason, and the other files are audited: no stack overflow ends the whole run.
#[test]
fn a_file_nested_too_deep_is_skipped_not_a_stack_overflow() {
    let dir = scratch("too-deep");
    fs::write(
        dir.join("main.rs"),
        "use axum::{Json, Router, routing::get};\nmod generated;\nmod chained;\nmod branched;\nmod negated;\n\
         mod documented;\nmod long_router;\nasync fn list() -> Json<Vec<u8>> { Json(vec![]) }\n\
         fn main() { let _app: Router = Router::new().route(\"/list\", get(list)).merge(long_router::app()); }\n",
    )
    .unwrap();
    let deep = 20_000;
    fs::write(dir.join("generated.rs"), format!("pub fn f() -> u8 {}1{}\n", "{".repeat(deep), "}".repeat(deep)))
        .unwrap();
    let routes = ".route(\"/r\", axum::routing::get(super::list))".repeat(deep);
    fs::write(dir.join("chained.rs"), format!("pub fn app() -> axum::Router {{ axum::Router::new(){routes} }}\n"))
        .unwrap();
    let arms = "else if x == 1 { 1 } ".repeat(deep);
    fs::write(dir.join("branched.rs"), format!("pub fn f(x: u8) -> u8 {{ if x == 0 {{ 0 }} {arms}else {{ 2 }} }}\n"))
        .unwrap();
    fs::write(dir.join("negated.rs"), format!("pub fn f() -> bool {{ {}true }}\n", "!".repeat(deep))).unwrap();
    // Neither a long module of documented items nor a long router chain below the limit is one.
    let helpers =
        "/// A helper.\n/// Documented.\n#[inline]\npub fn helper() -> Option<::std::string::String> { None }\n";
    fs::write(dir.join("documented.rs"), helpers.repeat(2000)).unwrap();
    let routes = ".route(\"/r\", axum::routing::get(super::list))".repeat(1900);
    let long_router = format!(
        "pub fn app() -> axum::Router {{ axum::Router::new(){routes}.route(\"/long\", axum::routing::get(super::list)) }}\n"
    );
    fs::write(dir.join("long_router.rs"), long_router).unwrap();
    let out = run(&dir, &["--format", "json", "-q"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(verdict_of(&report, "GET", "/list"), "list_without_completeness");
    assert_eq!(verdict_of(&report, "GET", "/long"), "list_without_completeness", "a chain below the limit is read");
    let skipped: Vec<(String, String)> = report["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["file"].as_str().unwrap().to_owned(), s["error"].as_str().unwrap().to_owned()))
        .collect();
    assert_eq!(skipped.len(), 4, "{report:#}");
    for (file, error) in &skipped {
        let expected = if file.ends_with("generated.rs") { "nested 20000 levels deep" } else { "chained" };
        assert!(error.contains(expected), "{file}: {error}");
    }
    assert_eq!(run(&dir, &["-q", "--deny", "skipped"]).status.code(), Some(1));
}

/// A directory of its own under the system's temporary directory, removed when the test ends
/// (passed or failed), so that runs leave nothing behind.
struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// Writes `text` to `path` under `dir`, creating the directories on the way.
fn write_under(dir: &Path, path: &str, text: &str) {
    let path = dir.join(path);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// A scratch package `package` (edition 2024) whose binary's `src/main.rs` is `main`.
fn binary_crate(name: &str, package: &str, main: &str) -> Scratch {
    let dir = scratch(name);
    let manifest = format!("[package]\nname = \"{package}\"\nversion = \"0.1.0\"\nedition = \"2024\"\n");
    write_under(&dir, "Cargo.toml", &manifest);
    write_under(&dir, "src/main.rs", main);
    dir
}

fn scratch(name: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!("completeness-audit-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    Scratch(dir)
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// A handler handed to a helper that registers it (`fn list_route<H>(h: H) -> MethodRouter {
/// get(h) }`) is the handler the call names: a list stays a list, a closure is classified as
/// written, and a helper called with two handlers registers each where it was called.
#[test]
fn a_handler_handed_to_a_helper_is_classified_where_the_helper_is_called() {
    let dir = binary_crate(
        "handed-handlers",
        "handed",
        "use axum::{Json, Router, handler::Handler, routing::{MethodRouter, get}};\n\
         async fn list_orders() -> Json<Vec<u32>> { Json(vec![]) }\n\
         async fn one_order() -> Json<u32> { Json(1) }\n\
         fn read_route<H: Handler<T, ()>, T: 'static>(h: H) -> MethodRouter { get(h) }\n\
         fn app() -> Router {\n    Router::new()\n        .route(\"/orders\", read_route(list_orders))\n        \
         .route(\"/orders/{id}\", read_route(one_order))\n        \
         .route(\"/names\", read_route(|| async { Json(vec![\"a\"]) }))\n}\n\
         fn main() { let _app = app(); }\n",
    );
    let report = json(&dir, &["-q"]);
    let mut found = verdicts(&report);
    found.sort();
    let verdict = |path: &str, verdict: &str| ("GET".to_owned(), path.to_owned(), verdict.to_owned());
    assert_eq!(
        found,
        [
            verdict("/names", "list_without_completeness"),
            verdict("/orders", "list_without_completeness"),
            verdict("/orders/{id}", "not_a_list"),
        ],
        "{report:#}"
    );
}

/// Run by its own name rather than through cargo (`cargo-completeness audit PATH`), the binary
/// audits as `cargo completeness audit PATH` does.
#[test]
fn the_binary_run_by_its_own_name_audits_as_through_cargo() {
    let path = fixture("list_pages");
    let direct = Command::new(env!("CARGO_BIN_EXE_cargo-completeness"))
        .args(["audit", "--format", "json"])
        .arg(&path)
        .output()
        .expect("the audit binary runs");
    assert!(direct.status.success(), "{}", String::from_utf8_lossy(&direct.stderr));
    assert_eq!(direct.stdout, run(&path, &["--format", "json"]).stdout);
}
