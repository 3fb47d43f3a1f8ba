//! Names the reason type is built from: a handler whose name starts with a digit once its
//! underscores are gone keeps one underscore (`_2fa_devices` → `_2faDevicesReason`), as does one
//! that starts with any other character no identifier starts with (a digit of another script, a
//! combining mark); and an `impl` of a raw identifier is named without its `r#`, capitalized
//! (`r#dyn::list` → `DynListReason`).

#![allow(uncommon_codepoints)]

use axum::Router;
use completeness::routing::get;
use completeness::{CompletenessConfig, CursorKeys, Envelope, Scope, completeness};

#[completeness(resource = "devices", reasons(MorePagesAvailable))]
async fn _2fa_devices() -> Envelope<String, _2faDevicesReason> {
    Envelope::complete(vec![], Scope::new("devices", "every second-factor device"))
}

#[completeness(resource = "devices", reasons())]
async fn _١_devices() -> Envelope<String, _١DevicesReason> {
    Envelope::complete(vec![], Scope::new("devices", "the first devices"))
}

#[completeness(resource = "devices", reasons())]
async fn _̀devices() -> Envelope<String, _̀devicesReason> {
    Envelope::complete(vec![], Scope::new("devices", "the marked devices"))
}

#[allow(non_camel_case_types)]
struct r#dyn;

#[completeness]
impl r#dyn {
    #[completeness(resource = "modules", reasons())]
    async fn list() -> Envelope<String, DynListReason> {
        Envelope::complete(vec![], Scope::new("modules", "every dynamic module"))
    }
}

fn main() {
    assert_eq!(_2faDevicesReason::ALL.len(), 1);
    assert!(DynListReason::ALL.is_empty());
    assert!(_١DevicesReason::ALL.is_empty() && _̀devicesReason::ALL.is_empty());
    let _app: Router = Router::new()
        .route("/devices", get(_2fa_devices).into())
        .route("/first", get(_١_devices).into())
        .route("/marked", get(_̀devices).into())
        .route("/modules", get(r#dyn::list).into())
        .with_state(CompletenessConfig::new(CursorKeys::ephemeral()));
}
