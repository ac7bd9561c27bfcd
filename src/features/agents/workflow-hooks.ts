// What the agents feature asks of workflows (an agent's graph, kept in the workflows feature).
/** What the agents module needs from the workflows module (wired by the app, so neither imports the other). */
export interface AgentWorkflowHooks {
  hasWorkflow(workspaceId: string, agentId: string): Promise<boolean>
  /** Attaches a template's workflow; validated like PUT /api/agents/{id}/workflow. */
  attachWorkflow(workspaceId: string, agentId: string, graph: { nodes: unknown[]; edges: unknown[] }): Promise<void>
}

export const NO_WORKFLOWS: AgentWorkflowHooks = {
  hasWorkflow: async () => false,
  attachWorkflow: async () => {
    throw new Error('workflows are not mounted')
  },
}
