import { flowSchemaStrategy } from '../../registry/strategies/flowcontrol/flow-schema.js';
import { priorityLevelConfigurationStrategy } from '../../registry/strategies/flowcontrol/priority-level-configuration.js';
import { bootstrapFlowSchemas, bootstrapPriorityLevels } from './flowcontrol.js';

// kube's internalbootstrap tests: the registered defaulting makes no change to the bootstrap objects, and they are valid
describe("APF's bootstrap objects", () => {
  it.each(bootstrapPriorityLevels().map((b) => [String((b.object['metadata'] as { name: string }).name), b.object] as const))('priority level %s is unchanged by defaulting and valid', (_n, obj) => {
    const copy = structuredClone(obj);
    priorityLevelConfigurationStrategy.applyDefaults!(copy);
    expect(copy).toEqual(obj);
    expect(priorityLevelConfigurationStrategy.validate!(copy)).toEqual([]);
  });

  it.each(bootstrapFlowSchemas('2026-01-01T00:00:00Z').map((b) => [String((b.object['metadata'] as { name: string }).name), b.object] as const))('flow schema %s is unchanged by defaulting and valid', (_n, obj) => {
    const copy = structuredClone(obj);
    flowSchemaStrategy.applyDefaults!(copy);
    expect(copy).toEqual(obj);
    expect(flowSchemaStrategy.validate!(copy)).toEqual([]);
  });

  it('references only priority levels it creates', () => {
    const levels = new Set(bootstrapPriorityLevels().map((b) => (b.object['metadata'] as { name: string }).name));
    for (const fs of bootstrapFlowSchemas('now')) expect(levels).toContain((fs.object['spec'] as { priorityLevelConfiguration: { name: string } }).priorityLevelConfiguration.name);
  });
});
