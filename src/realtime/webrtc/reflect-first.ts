// The Reflect metadata polyfill on its own: the bundler runs a module's plain CommonJS imports
// after its ES ones, so werift.ts reaches the polyfill through this ES module to load it first.
import 'reflect-metadata'
