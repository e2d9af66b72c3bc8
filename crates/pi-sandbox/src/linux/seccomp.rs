//! The seccomp filters (seccompiler; installing one sets no-new-privs):
//! no ptrace or reading other processes' memory, no mounts or new
//! namespaces, no kernel keyrings, BPF, modules or file handles, no
//! `TIOCSTI`/`TIOCLINUX`, and no sockets unless the network is allowed (in
//! a private network namespace, IPv4 and IPv6 on its own loopback only).
//! `clone3` and io_uring answer ENOSYS, so libc falls back to `clone` (whose
//! flags can be checked) and io_uring cannot open sockets behind the filter.

use std::collections::BTreeMap;

use seccompiler::{
    BackendError, BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch, sock_filter,
};

use super::error::RestrictError;
use super::spec::Network;

#[cfg(target_arch = "x86_64")]
const ARCH: Option<TargetArch> = Some(TargetArch::x86_64);
#[cfg(target_arch = "aarch64")]
const ARCH: Option<TargetArch> = Some(TargetArch::aarch64);
#[cfg(target_arch = "riscv64")]
const ARCH: Option<TargetArch> = Some(TargetArch::riscv64);
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64", target_arch = "riscv64")))]
const ARCH: Option<TargetArch> = None;

/// Syscalls that fail with EPERM whatever their arguments.
const DENIED: &[libc::c_long] = &[
    libc::SYS_ptrace,
    libc::SYS_process_vm_readv,
    libc::SYS_process_vm_writev,
    libc::SYS_pidfd_getfd,
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    libc::SYS_move_mount,
    libc::SYS_open_tree,
    libc::SYS_fsopen,
    libc::SYS_fsconfig,
    libc::SYS_fsmount,
    libc::SYS_fspick,
    libc::SYS_mount_setattr,
    libc::SYS_chroot,
    libc::SYS_unshare,
    libc::SYS_setns,
    libc::SYS_bpf,
    libc::SYS_perf_event_open,
    libc::SYS_userfaultfd,
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
    libc::SYS_kexec_load,
    libc::SYS_kexec_file_load,
    libc::SYS_init_module,
    libc::SYS_finit_module,
    libc::SYS_delete_module,
    libc::SYS_name_to_handle_at,
    libc::SYS_open_by_handle_at,
    libc::SYS_acct,
    libc::SYS_swapon,
    libc::SYS_swapoff,
    libc::SYS_reboot,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_iopl,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_ioperm,
];

/// Syscalls that answer ENOSYS (callers fall back to something checkable).
const NOT_THERE: &[libc::c_long] =
    &[libc::SYS_clone3, libc::SYS_io_uring_setup, libc::SYS_io_uring_enter, libc::SYS_io_uring_register];

/// `clone` flags that make a new namespace.
const NAMESPACE_FLAGS: [u64; 7] = [
    libc::CLONE_NEWNS as u64,
    libc::CLONE_NEWCGROUP as u64,
    libc::CLONE_NEWUTS as u64,
    libc::CLONE_NEWIPC as u64,
    libc::CLONE_NEWUSER as u64,
    libc::CLONE_NEWPID as u64,
    libc::CLONE_NEWNET as u64,
];

/// Terminal ioctls that push input or act on the console. (`libc`'s ioctl
/// type differs between targets, hence the cast.)
#[allow(clippy::unnecessary_cast)]
const TERMINAL_IOCTLS: [u64; 2] = [libc::TIOCSTI as u64, libc::TIOCLINUX as u64];

fn cond(arg: u8, len: SeccompCmpArgLen, op: SeccompCmpOp, value: u64) -> Result<SeccompCondition, BackendError> {
    SeccompCondition::new(arg, len, op, value)
}

fn rule(conditions: Vec<SeccompCondition>) -> Result<SeccompRule, BackendError> {
    SeccompRule::new(conditions)
}

/// The EPERM filter's rules.
fn eperm_rules(network: Network) -> Result<BTreeMap<i64, Vec<SeccompRule>>, BackendError> {
    use SeccompCmpArgLen::{Dword, Qword};
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = DENIED.iter().map(|nr| (*nr, Vec::new())).collect();
    let clone = NAMESPACE_FLAGS
        .iter()
        .map(|f| rule(vec![cond(0, Qword, SeccompCmpOp::MaskedEq(*f), *f)?]))
        .collect::<Result<Vec<_>, _>>()?;
    rules.insert(libc::SYS_clone, clone);
    let ioctl = TERMINAL_IOCTLS
        .iter()
        .map(|c| rule(vec![cond(1, Dword, SeccompCmpOp::Eq, *c)?]))
        .collect::<Result<Vec<_>, _>>()?;
    rules.insert(libc::SYS_ioctl, ioctl);
    match network {
        Network::On => {}
        Network::Off => {
            rules.insert(libc::SYS_socket, Vec::new());
        }
        Network::OwnLoopback => {
            let other_family = rule(vec![
                cond(0, Dword, SeccompCmpOp::Ne, libc::AF_INET as u64)?,
                cond(0, Dword, SeccompCmpOp::Ne, libc::AF_INET6 as u64)?,
            ])?;
            rules.insert(libc::SYS_socket, vec![other_family]);
        }
    }
    Ok(rules)
}

fn compile(rules: BTreeMap<i64, Vec<SeccompRule>>, errno: i32, arch: TargetArch) -> Result<BpfProgram, BackendError> {
    let filter = SeccompFilter::new(rules, SeccompAction::Allow, SeccompAction::Errno(errno as u32), arch)?;
    filter.try_into()
}

/// A raw filter for x86_64: syscall numbers of the x32 ABI (bit 30 set)
/// answer ENOSYS, so no denied syscall can be reached by its x32 number.
#[cfg(target_arch = "x86_64")]
fn x32_guard() -> BpfProgram {
    const AUDIT_ARCH_X86_64: u32 = 0xC000_003E;
    const X32_SYSCALL_BIT: u32 = 0x4000_0000;
    const ARCH_OFFSET: u32 = 4;
    const NR_OFFSET: u32 = 0;
    let stmt = |code: u32, k: u32| sock_filter { code: code as u16, jt: 0, jf: 0, k };
    let jump = |code: u32, k: u32, jt: u8, jf: u8| sock_filter { code: code as u16, jt, jf, k };
    vec![
        stmt(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS, ARCH_OFFSET),
        jump(libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K, AUDIT_ARCH_X86_64, 0, 3),
        stmt(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS, NR_OFFSET),
        jump(libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K, X32_SYSCALL_BIT, 0, 1),
        stmt(libc::BPF_RET | libc::BPF_K, libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32),
        stmt(libc::BPF_RET | libc::BPF_K, libc::SECCOMP_RET_ALLOW),
    ]
}

/// Install the filters in this process (inherited by what it runs).
pub(super) fn apply(network: Network) -> Result<(), RestrictError> {
    let arch = ARCH.ok_or(RestrictError::UnsupportedArch)?;
    let mut programs = vec![compile(eperm_rules(network)?, libc::EPERM, arch)?];
    let enosys: BTreeMap<i64, Vec<SeccompRule>> = NOT_THERE.iter().map(|nr| (*nr, Vec::new())).collect();
    programs.push(compile(enosys, libc::ENOSYS, arch)?);
    #[cfg(target_arch = "x86_64")]
    programs.push(x32_guard());
    for p in &programs {
        seccompiler::apply_filter(p)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_filters_compile_for_every_network_setting() {
        let arch = ARCH.unwrap();
        for n in [Network::Off, Network::OwnLoopback, Network::On] {
            let prog = compile(eperm_rules(n).unwrap(), libc::EPERM, arch).unwrap();
            assert!(!prog.is_empty());
        }
        #[cfg(target_arch = "x86_64")]
        assert_eq!(x32_guard().len(), 6);
    }
}
