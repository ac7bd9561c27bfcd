// Public face of call admission: workspace limits and headroom, asked before any call starts.
export { Admission, type AdmissionDeps, type CallKind, type Ticket } from './admission.ts'
export { fixedCapacity, headroomOf, UNLIMITED, type CapacityFigures, type CapacityLimits, type CapacityModel, type LiveFigures } from './capacity.ts'
export { LiveCapacity, type LiveCapacityOptions } from './live.ts'
