/** Command-line errors of the on-demand scripts (bench, soak): one line naming the problem, the usage, exit 2. */
export function scriptArgs(script: string, usageText: string): {
  usage: (message: string) => never;
  numberOption: (text: string | undefined, name: string, min: number, max: number) => number;
} {
  const usage = (message: string): never => {
    process.stderr.write(`${script}: ${message}\nusage: ${usageText}\n`);
    process.exit(2);
  };
  return {
    usage,
    numberOption: (text, name, min, max) => {
      const value = Number(text);
      if (!(value >= min && value <= max)) usage(`--${name} must be a number from ${min} to ${max}, got '${text}'`);
      return value;
    },
  };
}
