export { type CallIo, type DriverOptions, type Timers, WorkflowCallDriver } from './driver.ts'
export { DigitBuffer, type DigitExpectation, digitExpectation } from './dtmf.ts'
