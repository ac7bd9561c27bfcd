// Public face of call admission: workspace limits and headroom, asked before any call starts.
export { Admission, type AdmissionDeps, type CallKind, type Ticket } from './admission.ts'
export { fixedCapacity, UNLIMITED, type CapacityFigures, type CapacityModel } from './capacity.ts'
