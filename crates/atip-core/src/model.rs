//! The serde model of an ATIP document, versions 0.1 to 0.6 (spec §3).
//!
//! These types describe a document that has already passed [`crate::load()`]'s validation;
//! deserialising them directly with serde skips that validation (unknown fields are ignored,
//! wrong types fail at the first error). Command maps keep declaration order.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::effects::Effects;

/// A whole ATIP document: what `tool --agent` prints (spec §3.2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DocumentTree {
    /// `atip`: protocol version, legacy string or object form (§3.2.1).
    pub atip: ProtocolVersion,
    /// `name`: the executable's name (`^[a-zA-Z0-9_-]+$`).
    pub name: String,
    /// `version`: the tool's own version.
    pub version: String,
    /// `description`: one line, at most 200 characters.
    pub description: String,
    /// `homepage`: documentation URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub homepage: Option<String>,
    /// `binary` (0.6): the binary a content-addressed shim describes (§4.5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binary: Option<BinaryInfo>,
    /// `partial`: this is filtered metadata (§3.1.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partial: Option<bool>,
    /// `filter`: the filter that produced partial metadata (§3.1.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<DiscoveryFilter>,
    /// `totalCommands`: commands the full metadata has (§3.1.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_commands: Option<u64>,
    /// `includedCommands`: commands this partial metadata has (§3.1.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub included_commands: Option<u64>,
    /// `omitted`: what the absence of commands means for safety (§3.1.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub omitted: Option<Omitted>,
    /// `trust`: provenance of this metadata (§3.2.2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trust: Option<Trust>,
    /// `commands`: subcommands by name, in declaration order (§3.3).
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub commands: IndexMap<String, CommandSpec>,
    /// `globalOptions`: options accepted by every command, placed right after the program.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub global_options: Vec<OptionSpec>,
    /// `authentication`: how the tool authenticates (§3.8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authentication: Option<Authentication>,
    /// `effects`: side effects of every command of the tool (§3.6).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effects: Option<Effects>,
    /// `patterns`: common usage patterns (§3.9).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub patterns: Vec<Pattern>,
    /// `x-atip-rust`: this library's vendor extension (spec §12.2) at the top of a document,
    /// e.g. that its commands are the tools of an MCP server ([`ToolExtension::mcp`]).
    #[serde(
        rename = "x-atip-rust",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub extension: Option<ToolExtension>,
}

impl DocumentTree {
    /// Whether the document describes an MCP server's tools (`x-atip-rust.mcp: true`).
    pub fn is_mcp_server(&self) -> bool {
        self.extension.as_ref().is_some_and(|e| e.mcp)
    }
}

/// The `x-atip-rust` member at the top of a document (a vendor extension, spec §12.2). Other
/// members of it are ignored.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolExtension {
    /// `mcp`: every command of the document is a tool of the MCP server the document's `name`
    /// names, and a call of one is an MCP `tools/call` of the command's name with its
    /// parameters as the JSON arguments, never a process the runner starts. Documents made
    /// from a server's `tools/list` by `atip_canonical::mcp_to_atip` say so.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub mcp: bool,
}

/// The `atip` field: `"0.3"` (legacy) or `{"version": "0.6", …}` (§3.2.1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ProtocolVersion {
    /// Legacy string form, e.g. `"0.3"`.
    Legacy(String),
    /// Object form with optional feature list.
    Object(ProtocolInfo),
}

/// The object form of the `atip` field (§3.2.1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProtocolInfo {
    /// `version`: `major.minor`, e.g. `"0.6"`.
    pub version: String,
    /// `features`: optional features this metadata uses.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub features: Vec<String>,
    /// `minAgentVersion`: oldest agent protocol version that can use this metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_agent_version: Option<String>,
}

impl ProtocolVersion {
    /// The declared protocol version, e.g. `"0.6"`.
    pub fn version(&self) -> &str {
        match self {
            ProtocolVersion::Legacy(v) => v,
            ProtocolVersion::Object(info) => &info.version,
        }
    }
}

/// One command (§3.3). A command with subcommands is a group; one without is a leaf and
/// becomes a tool when flattened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CommandSpec {
    /// `description`: what the command does.
    pub description: String,
    /// `arguments`: positional arguments, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub arguments: Vec<ArgumentSpec>,
    /// `options`: flagged options. On a group they are inherited by every command below it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<OptionSpec>,
    /// `commands`: nested subcommands in declaration order. A child named `""` stands for
    /// this command itself.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub commands: IndexMap<String, CommandSpec>,
    /// `effects`: side effects, merged with the tool's and ancestors' (§3.6).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effects: Option<Effects>,
    /// `examples`: example invocations.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<String>,
}

/// A positional argument (§3.4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArgumentSpec {
    /// `name`
    pub name: String,
    /// `type` (§3.7)
    #[serde(rename = "type")]
    pub ty: ParamType,
    /// `description`
    pub description: String,
    /// `required`; the spec default for arguments is `true`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    /// `default`: the tool's default when the argument is left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
    /// `variadic`: accepts several values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variadic: Option<bool>,
    /// `enum`: allowed values.
    #[serde(rename = "enum", default, skip_serializing_if = "Option::is_none")]
    pub enum_values: Option<Vec<EnumValue>>,
    /// `x-atip-rust`: this library's vendor extension (spec §12.2), e.g. the effects of
    /// giving this argument.
    #[serde(
        rename = "x-atip-rust",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub extension: Option<ParamExtension>,
}

/// The `x-atip-rust` member of an argument or option (a vendor extension, spec §12.2). Other
/// members of it (an importer's notes such as `exclusiveOn`) are ignored.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ParamExtension {
    /// `effects`: what a call that gives this parameter does beyond the command's own effects
    /// (same shape as `effects`, §3.6): `git push --force` destroys history, `git push` does
    /// not. A call's effects are the command's merged with those of every parameter it gives
    /// (risk added, never taken away: [`Effects::raised_by`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effects: Option<Effects>,
}

impl ArgumentSpec {
    /// Whether the argument must be given (spec default `true`).
    pub fn is_required(&self) -> bool {
        self.required.unwrap_or(true)
    }
}

/// A flagged option (§3.5).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OptionSpec {
    /// `name`
    pub name: String,
    /// `flags`: e.g. `["-o", "--output"]`, each starting with `-`.
    pub flags: Vec<String>,
    /// `type` (§3.7)
    #[serde(rename = "type")]
    pub ty: ParamType,
    /// `description`
    pub description: String,
    /// `required`; the spec default for options is `false`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    /// `default`: the tool's default when the option is left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
    /// `enum`: allowed values.
    #[serde(rename = "enum", default, skip_serializing_if = "Option::is_none")]
    pub enum_values: Option<Vec<EnumValue>>,
    /// `envVar`: environment variable that overrides the option.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env_var: Option<String>,
    /// `variadic` (0.6): the option may be repeated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variadic: Option<bool>,
    /// `x-atip-rust`: this library's vendor extension (spec §12.2), e.g. the effects of
    /// setting this option ([`ParamExtension::effects`]).
    #[serde(
        rename = "x-atip-rust",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub extension: Option<ParamExtension>,
}

impl OptionSpec {
    /// Whether the option must be given (spec default `false`).
    pub fn is_required(&self) -> bool {
        self.required.unwrap_or(false)
    }
}

/// Parameter types (§3.7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ParamType {
    /// `string`
    String,
    /// `integer`
    Integer,
    /// `number`
    Number,
    /// `boolean`
    Boolean,
    /// `file`: a file path.
    File,
    /// `directory`: a directory path.
    Directory,
    /// `url`
    Url,
    /// `enum`: one of the `enum` values.
    Enum,
    /// `array`: a list of strings.
    Array,
}

impl ParamType {
    /// The spec's spelling of the type.
    pub const fn as_str(self) -> &'static str {
        match self {
            ParamType::String => "string",
            ParamType::Integer => "integer",
            ParamType::Number => "number",
            ParamType::Boolean => "boolean",
            ParamType::File => "file",
            ParamType::Directory => "directory",
            ParamType::Url => "url",
            ParamType::Enum => "enum",
            ParamType::Array => "array",
        }
    }
}

/// One value of an `enum` list: the schema allows strings and numbers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum EnumValue {
    /// A string value.
    String(String),
    /// A numeric value, kept exactly as written.
    Number(serde_json::Number),
}

impl EnumValue {
    /// The value as it appears on the command line.
    pub fn as_text(&self) -> String {
        match self {
            EnumValue::String(s) => s.clone(),
            EnumValue::Number(n) => n.to_string(),
        }
    }
}

/// Trust sources (§3.2.2), declared from most to least trusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TrustSource {
    /// `native`: the tool implements `--agent` itself (HIGH).
    Native,
    /// `vendor`: an official shim from the vendor (HIGH).
    Vendor,
    /// `org`: an organisation-maintained shim (MEDIUM).
    Org,
    /// `community`: a community shim (LOW).
    Community,
    /// `user`: a local shim written by the user (LOW).
    User,
    /// `inferred`: generated from `--help` output (VERY LOW).
    Inferred,
}

impl TrustSource {
    /// Rank in the order native > vendor > org > community > user > inferred; higher is more
    /// trusted (`native` is 5, `inferred` 0).
    pub const fn rank(self) -> u8 {
        match self {
            TrustSource::Native => 5,
            TrustSource::Vendor => 4,
            TrustSource::Org => 3,
            TrustSource::Community => 2,
            TrustSource::User => 1,
            TrustSource::Inferred => 0,
        }
    }

    /// The spec's spelling of the value.
    pub const fn as_str(self) -> &'static str {
        match self {
            TrustSource::Native => "native",
            TrustSource::Vendor => "vendor",
            TrustSource::Org => "org",
            TrustSource::Community => "community",
            TrustSource::User => "user",
            TrustSource::Inferred => "inferred",
        }
    }
}

/// `trust` (§3.2.2). Holds the 0.6 fields and the 0.4 fields (`checksum`, `signedBy`,
/// `attestation`) that 0.5 replaced.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Trust {
    /// `source`: where the metadata comes from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<TrustSource>,
    /// `verified`: whether the metadata was checked against the tool's behaviour.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verified: Option<bool>,
    /// `integrity` (0.5+): binary checksum and signature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub integrity: Option<Integrity>,
    /// `provenance` (0.5+): SLSA attestation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provenance: Option<Provenance>,
    /// `shimIntegrity` (0.5+): signature of a community shim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shim_integrity: Option<ShimIntegrity>,
    /// `checksum` (0.4): `algo:hex` hash of the binary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checksum: Option<String>,
    /// `signedBy` (0.4): who signed the metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signed_by: Option<String>,
    /// `attestation` (0.4): URL of a verification attestation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attestation: Option<String>,
}

impl Trust {
    /// The checksum the binary must have: `integrity.checksum` (0.5+), else 0.4's `checksum`.
    pub fn binary_checksum(&self) -> Option<&str> {
        self.integrity
            .as_ref()
            .and_then(|i| i.checksum.as_deref())
            .or(self.checksum.as_deref())
    }
}

/// `trust.integrity` (§3.2.2).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Integrity {
    /// `checksum`: `algo:hex` hash of the binary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checksum: Option<String>,
    /// `signature`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<Signature>,
}

/// A signature block (`trust.integrity.signature`, `trust.shimIntegrity.signature`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Signature {
    /// `type`: `cosign`, `gpg` or `minisign`.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<SignatureType>,
    /// `identity`: expected signer (OIDC subject).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identity: Option<String>,
    /// `issuer`: OIDC issuer URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issuer: Option<String>,
    /// `bundle`: URL of the signature bundle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bundle: Option<String>,
}

/// Signature types (§3.2.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SignatureType {
    /// `cosign`
    Cosign,
    /// `gpg`
    Gpg,
    /// `minisign`
    Minisign,
}

/// `trust.provenance` (§3.2.2).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Provenance {
    /// `url`: attestation document.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// `format`: `slsa-provenance-v1` or `in-toto`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// `slsaLevel`: claimed SLSA level, 0 to 4.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slsa_level: Option<u8>,
    /// `builder`: trusted builder identity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub builder: Option<String>,
}

/// `trust.shimIntegrity` (§3.2.2).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ShimIntegrity {
    /// `signature`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<Signature>,
    /// `lastVerified`: RFC 3339 date-time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_verified: Option<String>,
}

/// `binary` (§4.5): the binary a content-addressed shim describes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BinaryInfo {
    /// `hash`: `sha256:` and 64 hex digits.
    pub hash: String,
    /// `name`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `version`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// `platform`: e.g. `linux-amd64`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub platform: Option<String>,
}

/// `filter` (§3.1.1): what partial discovery was asked for.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct DiscoveryFilter {
    /// `commands`: command subtrees requested.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub commands: Vec<String>,
    /// `depth`: nesting limit, `null` for none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u64>,
}

/// `omitted` (§3.1.1).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Omitted {
    /// `reason`: why commands are missing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<OmittedReason>,
    /// `safetyAssumption`: how to treat commands that are not in the metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub safety_assumption: Option<SafetyAssumption>,
}

/// `omitted.reason` values (§3.1.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OmittedReason {
    /// `filtered`
    Filtered,
    /// `depth-limited`
    DepthLimited,
    /// `size-limited`
    SizeLimited,
    /// `deprecated`
    Deprecated,
}

/// `omitted.safetyAssumption` values (§3.1.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SafetyAssumption {
    /// `unknown`: treat omitted commands as potentially unsafe.
    Unknown,
    /// `known-safe`: omitted commands have no destructive effects.
    KnownSafe,
    /// `known-unsafe`: omitted commands include destructive operations.
    KnownUnsafe,
    /// `same-as-included`: omitted commands are like the included ones.
    SameAsIncluded,
}

/// `authentication` (§3.8).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Authentication {
    /// `required`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    /// `methods`
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub methods: Vec<AuthMethod>,
    /// `checkCommand`: command that checks authentication.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check_command: Option<String>,
}

/// One entry of `authentication.methods` (§3.8).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuthMethod {
    /// `type`: `token`, `oauth`, `api-key`, `password` or `certificate`.
    #[serde(rename = "type")]
    pub kind: String,
    /// `envVar`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env_var: Option<String>,
    /// `description`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `setupCommand`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub setup_command: Option<String>,
}

/// A usage pattern (§3.9).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pattern {
    /// `name`
    pub name: String,
    /// `description`
    pub description: String,
    /// `steps`: commands in order.
    pub steps: Vec<PatternStep>,
    /// `variables`: template variables by name.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub variables: IndexMap<String, PatternVariable>,
    /// `tags` (0.6)
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// `executable` (0.6): an agent may run it (default `false`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub executable: Option<bool>,
}

/// One step of a [`Pattern`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PatternStep {
    /// `command`: the command line, with `{variable}` placeholders.
    pub command: String,
    /// `description`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// One entry of [`Pattern::variables`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PatternVariable {
    /// `type`
    #[serde(rename = "type")]
    pub ty: String,
    /// `description`
    pub description: String,
}
