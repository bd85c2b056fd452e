// storage.k8s.io/v1 registry strategies, keyed by "group/version/resource".
import type { Strategy } from '../../resource.js';
import { csiDriverStrategy } from './csi-driver.js';
import { csiNodeStrategy, csiStorageCapacityStrategy } from './csi-node.js';
import { storageClassStrategy } from './storage-class.js';
import { volumeAttachmentStrategy } from './volume-attachment.js';
import { volumeAttributesClassStrategy } from './volume-attributes-class.js';

export const storageStrategies: Record<string, Strategy> = {
  'storage.k8s.io/v1/storageclasses': storageClassStrategy,
  'storage.k8s.io/v1/csidrivers': csiDriverStrategy,
  'storage.k8s.io/v1/csinodes': csiNodeStrategy,
  'storage.k8s.io/v1/csistoragecapacities': csiStorageCapacityStrategy,
  'storage.k8s.io/v1/volumeattachments': volumeAttachmentStrategy,
  'storage.k8s.io/v1/volumeattributesclasses': volumeAttributesClassStrategy,
};
