//! Why an import failed: the package, the evaluation, the conversion, or the strict check.

use std::fmt;

use atip_core::LoadError;

use crate::convert::ConvertError;
use crate::engine::EvalError;

/// Why an import failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum ImportError {
    /// The package directory is unusable (no `build/`, unreadable `package.json` or index).
    Package(String),
    /// The spec module could not be evaluated.
    Eval(EvalError),
    /// The spec could not be converted.
    Convert(ConvertError),
    /// The converted document does not load strictly (a bug of the conversion).
    Invalid(LoadError),
}

impl ImportError {
    /// A short category for summaries: `package`, the evaluation's or conversion's category,
    /// or `invalid`.
    pub fn category(&self) -> &'static str {
        match self {
            ImportError::Package(_) => "package",
            ImportError::Eval(e) => e.category(),
            ImportError::Convert(e) => e.category(),
            ImportError::Invalid(_) => "invalid",
        }
    }
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImportError::Package(m) => write!(f, "{m}"),
            ImportError::Eval(e) => write!(f, "{e}"),
            ImportError::Convert(e) => write!(f, "{e}"),
            ImportError::Invalid(e) => write!(f, "the converted document does not load: {e}"),
        }
    }
}

impl std::error::Error for ImportError {}

impl From<EvalError> for ImportError {
    fn from(e: EvalError) -> Self {
        ImportError::Eval(e)
    }
}

impl From<ConvertError> for ImportError {
    fn from(e: ConvertError) -> Self {
        ImportError::Convert(e)
    }
}
