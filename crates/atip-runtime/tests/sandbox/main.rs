//! The sandbox on real processes: metadata that lies about its effects is contained by the
//! kernel (`sandbox`), the escapes found in the reviews of issue 32 stay closed (`escapes`,
//! `review`), what effects do not say is not granted (`least_privilege`), a command reaches only
//! the hosts its policy lists (`egress`), and the policy's path roots hold against real coreutils
//! (`paths`), and a call with unknown effects is tried first in the tightest sandbox
//! (`tight_first`), the Linux spawner's review (`spawn_review`), and programs started for as long as the
//! caller holds them (`started`). Needs Linux with Landlock and user namespaces; `ATIP_SANDBOX_TESTS=skip` skips the
//! tests that need the sandbox.

#![cfg(all(target_os = "linux", feature = "exec"))]

#[path = "../common/mod.rs"]
mod common;

mod egress;
mod escapes;
mod least_privilege;
mod paths;
mod review;
mod sandbox;
mod spawn_review;
mod started;
mod tight_first;
