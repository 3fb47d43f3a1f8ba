//! A service's own reasons and warnings as the fault layer injects them.

use crate::contract::continuation::Continuation;
use crate::contract::reason::{Reason, ReasonCode, ReasonDetails, StandardReason};
use crate::contract::warning::{Warning, WarningCode, WarningDetails};

/// One value of each of a service's own reasons and warnings, which the fault layer injects
/// as they are: with their detail members and their recovery, as the service sends them.
///
/// The layer knows an own reason by its declared code and kind only. Without an example it
/// injects one with the code, the kind and a message, and no detail members and no recovery:
/// an answer the service never sends, which its own schema refuses (a detail member is
/// required there) and a client that reads the details back cannot read. Give an example of
/// each own reason and warning that has detail members or a recovery
/// ([`FaultLayer::with_examples`](super::FaultLayer::with_examples),
/// [`Kit::examples`](super::Kit::examples)).
///
/// An example's recovery is kept, except a next cursor, which no example can hold for real:
/// the layer's own rules give a cursor to the reason that carries it. Examples of standard
/// reasons and warnings are not used: the layer builds those from the answer it faults (the
/// source it drops, the limit it cuts at).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Examples {
    reasons: Vec<StandardReason>,
    warnings: Vec<Warning>,
}

impl Examples {
    /// No example.
    pub fn new() -> Examples {
        Examples::default()
    }

    /// Injects `details`, a service's own reason, where the layer injects its code (the last one
    /// given for a code).
    pub fn reason<D: ReasonDetails>(mut self, details: D) -> Examples {
        self.reasons.retain(|reason| reason.code() != D::CODE);
        self.reasons.push(details.into_reason());
        self
    }

    /// Injects `details`, a service's own warning, where the layer injects its code (the last
    /// one given for a code).
    pub fn warning<W: WarningDetails>(mut self, details: W) -> Examples {
        self.warnings.retain(|warning| *warning.code() != W::CODE);
        self.warnings.push(Warning::from(details));
        self
    }

    /// The example of reason `code`, without a next cursor as its recovery.
    pub(crate) fn reason_of(&self, code: &ReasonCode) -> Option<StandardReason> {
        let reason = self.reasons.iter().find(|reason| reason.code() == *code)?;
        let cursor = matches!(reason.recovery(), Some(Continuation::NextCursor { .. }));
        let mut reason = reason.clone();
        if let (StandardReason::Custom(own), true) = (&mut reason, cursor) {
            own.drop_recovery();
        }
        Some(reason)
    }

    /// The example of warning `code`.
    pub(crate) fn warning_of(&self, code: &WarningCode) -> Option<Warning> {
        self.warnings.iter().find(|warning| warning.code() == code).cloned()
    }
}
