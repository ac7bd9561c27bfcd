/**
 * The dozen WASI preview1 calls a command-line C program such as flite needs, with an in-memory
 * file system: one preopened directory whose files live in a Map. No real files are touched,
 * which also keeps it working inside a `bun build --compile` binary.
 */
const ESUCCESS = 0
const EBADF = 8
const ENOENT = 44
const ENOSYS = 52

class ProcExit {
  constructor(readonly code: number) {}
}

interface OpenFile {
  path: string
  pos: number
}

export interface WasiRun {
  exitCode: number
  stdout: string
  stderr: string
  files: Map<string, Uint8Array>
}

/** Runs a WASI command module to completion. `dir` is the guest path of the in-memory folder. */
export function runWasiCommand(module: WebAssembly.Module, args: string[], dir = '/out'): WasiRun {
  return new WasiCommand(module, dir).run(args)
}

/**
 * One WASI command instance. A C program's _start runs once per instance, so creating one per
 * run copies the module's data into fresh memory, which for flite's 21 MB of voice data costs
 * several times the synthesis. With `reusable`, the instance keeps a copy of its initial memory
 * and `reset()` puts it back (a memcpy, no page faults, no instantiation).
 */
export class WasiCommand {
  private readonly instance: WebAssembly.Instance
  private readonly host: ReturnType<typeof makeHost>
  private readonly memory: WebAssembly.Memory
  private readonly initial: Uint8Array | undefined
  private used = false
  private returned = false

  constructor(module: WebAssembly.Module, dir = '/out', opts: { reusable?: boolean } = {}) {
    this.host = makeHost(dir)
    this.instance = new WebAssembly.Instance(module, { wasi_snapshot_preview1: this.host.wasi })
    this.memory = this.instance.exports.memory as WebAssembly.Memory
    this.host.setMemory(this.memory)
    if (opts.reusable) this.initial = new Uint8Array(this.memory.buffer).slice()
  }

  run(args: string[]): WasiRun {
    if (this.used) throw new Error('a WASI command instance runs once (reset() it first)')
    this.used = true
    this.host.reset(args)
    let exitCode = 0
    try {
      ;(this.instance.exports._start as () => void)()
      this.returned = true
    } catch (err) {
      if (err instanceof ProcExit) exitCode = err.code
      else throw err
    }
    return this.host.result(exitCode)
  }

  /**
   * Back to the state right after instantiation; false when that is not possible. The module's
   * only state outside memory is its stack-pointer global, which is back at its start value
   * only when _start returned: a proc_exit or a trap unwinds by exception and leaves it moved.
   */
  reset(): boolean {
    if (!this.initial || !this.returned) return false
    const bytes = new Uint8Array(this.memory.buffer)
    bytes.set(this.initial)
    bytes.fill(0, this.initial.length) // memory the run grew
    this.used = false
    this.returned = false
    return true
  }
}

function makeHost(dir: string) {
  let files = new Map<string, Uint8Array>()
  let sizes = new Map<string, number>()
  let fds = new Map<number, OpenFile>()
  let nextFd = 4
  let stdout = ''
  let stderr = ''
  const decoder = new TextDecoder()
  const encoder = new TextEncoder()
  let memory: WebAssembly.Memory
  const view = () => new DataView(memory.buffer)
  const bytes = () => new Uint8Array(memory.buffer)
  let argBytes: Uint8Array[] = []

  const write = (path: string, pos: number, data: Uint8Array) => {
    let buf = files.get(path) ?? new Uint8Array(0)
    const end = pos + data.length
    if (end > buf.length) {
      const grown = new Uint8Array(Math.max(end, buf.length * 2, 4096))
      grown.set(buf)
      buf = grown
      files.set(path, buf)
    }
    buf.set(data, pos)
    sizes.set(path, Math.max(sizes.get(path) ?? 0, end))
  }

  const iovecs = (ptr: number, len: number): Uint8Array[] => {
    const out: Uint8Array[] = []
    for (let i = 0; i < len; i++) {
      const base = view().getUint32(ptr + i * 8, true)
      const n = view().getUint32(ptr + i * 8 + 4, true)
      out.push(bytes().subarray(base, base + n))
    }
    return out
  }

  const wasi = {
    args_sizes_get(argcPtr: number, bufSizePtr: number) {
      view().setUint32(argcPtr, argBytes.length, true)
      view().setUint32(bufSizePtr, argBytes.reduce((n, a) => n + a.length, 0), true)
      return ESUCCESS
    },
    args_get(argvPtr: number, bufPtr: number) {
      let p = bufPtr
      argBytes.forEach((a, i) => {
        view().setUint32(argvPtr + i * 4, p, true)
        bytes().set(a, p)
        p += a.length
      })
      return ESUCCESS
    },
    clock_time_get(_id: number, _precision: bigint, timePtr: number) {
      view().setBigUint64(timePtr, BigInt(Date.now()) * 1_000_000n, true)
      return ESUCCESS
    },
    fd_close(fd: number) {
      fds.delete(fd)
      return ESUCCESS
    },
    fd_fdstat_get(fd: number, ptr: number) {
      const type = fd <= 2 ? 2 : fd === 3 ? 3 : fds.has(fd) ? 4 : -1
      if (type < 0) return EBADF
      view().setUint8(ptr, type)
      view().setUint16(ptr + 2, 0, true)
      view().setBigUint64(ptr + 8, 0xffffffffffffffffn, true)
      view().setBigUint64(ptr + 16, 0xffffffffffffffffn, true)
      return ESUCCESS
    },
    fd_fdstat_set_flags: () => ESUCCESS,
    fd_prestat_get(fd: number, ptr: number) {
      if (fd !== 3) return EBADF
      view().setUint8(ptr, 0)
      view().setUint32(ptr + 4, encoder.encode(dir).length, true)
      return ESUCCESS
    },
    fd_prestat_dir_name(fd: number, pathPtr: number, len: number) {
      if (fd !== 3) return EBADF
      bytes().set(encoder.encode(dir).subarray(0, len), pathPtr)
      return ESUCCESS
    },
    fd_read(fd: number, _iovs: number, _len: number, nreadPtr: number) {
      if (fd !== 0 && !fds.has(fd)) return EBADF
      view().setUint32(nreadPtr, 0, true)
      return ESUCCESS
    },
    fd_seek(fd: number, offset: bigint, whence: number, newPtr: number) {
      const f = fds.get(fd)
      if (!f) return fd <= 2 ? ENOSYS : EBADF
      const size = sizes.get(f.path) ?? 0
      const base = whence === 0 ? 0 : whence === 1 ? f.pos : size
      f.pos = Math.max(0, base + Number(offset))
      view().setBigUint64(newPtr, BigInt(f.pos), true)
      return ESUCCESS
    },
    fd_write(fd: number, iovs: number, len: number, nwrittenPtr: number) {
      let n = 0
      for (const chunk of iovecs(iovs, len)) {
        if (fd === 1) stdout += decoder.decode(chunk)
        else if (fd === 2) stderr += decoder.decode(chunk)
        else {
          const f = fds.get(fd)
          if (!f) return EBADF
          write(f.path, f.pos, chunk)
          f.pos += chunk.length
        }
        n += chunk.length
      }
      view().setUint32(nwrittenPtr, n, true)
      return ESUCCESS
    },
    path_open(dirFd: number, _dirflags: number, pathPtr: number, pathLen: number, oflags: number, _rb: bigint, _ri: bigint, _fdflags: number, fdPtr: number) {
      if (dirFd !== 3) return EBADF
      const path = decoder.decode(bytes().subarray(pathPtr, pathPtr + pathLen))
      const create = (oflags & 1) !== 0
      const truncate = (oflags & 8) !== 0
      if (!files.has(path)) {
        if (!create) return ENOENT
        files.set(path, new Uint8Array(0))
      }
      if (truncate) sizes.set(path, 0)
      const fd = nextFd++
      fds.set(fd, { path, pos: 0 })
      view().setUint32(fdPtr, fd, true)
      return ESUCCESS
    },
    proc_exit(code: number) {
      throw new ProcExit(code)
    },
  }

  return {
    wasi,
    setMemory(m: WebAssembly.Memory) {
      memory = m
    },
    reset(args: string[]) {
      argBytes = args.map((a) => encoder.encode(`${a}\0`))
      files = new Map()
      sizes = new Map()
      fds = new Map()
      nextFd = 4
      stdout = ''
      stderr = ''
    },
    result(exitCode: number): WasiRun {
      const out = new Map<string, Uint8Array>()
      for (const [path, buf] of files) out.set(path, buf.slice(0, sizes.get(path) ?? 0))
      return { exitCode, stdout, stderr, files: out }
    },
  }
}
