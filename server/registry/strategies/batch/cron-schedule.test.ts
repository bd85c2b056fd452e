// cron.ParseStandard's acceptance and error texts (github.com/robfig/cron/v3 parser.go), as kube's CronJob
// validation reports them; cases after robfig/cron's parser_test.go.
import { cronScheduleError } from './cron-schedule.js';

describe('cronScheduleError (robfig/cron ParseStandard)', () => {
  it.each([
    '* * * * *',
    '*/15 * * * *',
    '0 0 1 1 *',
    '5 4 * * sun',
    '0 22 * * 1-5',
    '0 0 ? * MON-FRI',
    '0,30 8-18/2 * jan-jun *',
    '@hourly',
    '@yearly',
    '@every 1h30m',
  ])('accepts %s', (spec) => {
    expect(cronScheduleError(spec)).toBeUndefined();
  });

  it.each([
    ['', 'empty spec string'],
    ['* * *', 'expected exactly 5 fields, found 3: [* * *]'],
    ['* * * * * *', 'expected exactly 5 fields, found 6: [* * * * * *]'],
    ['60 * * * *', 'end of range (60) above maximum (59): 60'],
    ['* 24 * * *', 'end of range (24) above maximum (23): 24'],
    ['* * 0 * *', 'beginning of range (0) below minimum (1): 0'],
    ['* * * 13 *', 'end of range (13) above maximum (12): 13'],
    ['5-1 * * * *', 'beginning of range (5) beyond end of range (1): 5-1'],
    ['*/0 * * * *', 'step of range should be a positive number: */0'],
    ['1-2-3 * * * *', 'too many hyphens: 1-2-3'],
    ['*/2/3 * * * *', 'too many slashes: */2/3'],
    ['a * * * *', 'failed to parse int from a: strconv.Atoi: parsing "a": invalid syntax'],
    ['* * * * funday', 'failed to parse int from funday: strconv.Atoi: parsing "funday": invalid syntax'],
    ['@fortnightly', 'unrecognized descriptor: @fortnightly'],
    ['@every soon', 'failed to parse duration @every soon: time: invalid duration "soon"'],
    ['TZ=Mars/Olympus * * * * *', 'provided bad location Mars/Olympus: unknown time zone Mars/Olympus'],
  ])('refuses %j: %s', (spec, message) => {
    expect(cronScheduleError(spec)).toBe(message);
  });
});
