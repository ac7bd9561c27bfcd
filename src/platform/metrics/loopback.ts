/** Loopback client addresses, IPv4 and IPv6 (also IPv4-mapped), as `Server.requestIP` gives them. */
export const isLoopback = (ip: string): boolean => /^(127\.|::1$|::ffff:127\.)/i.test(ip)
